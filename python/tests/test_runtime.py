"""kosan.register_tensor and friends, against a stand-in runtime (fake_runtime.c)."""

import ctypes
import textwrap

import pytest

import kosan
import kosan._runtime
from conftest import run_python


class FakeTensor:
    """What register_tensor uses of a torch tensor (dtype and shape optional)."""

    def __init__(self, address, numel, element_size, dtype=None, shape=None):
        self._address, self._numel, self._element_size = address, numel, element_size
        if dtype is not None:
            self.dtype = dtype
        if shape is not None:
            self.shape = shape

    def data_ptr(self):
        return self._address

    def numel(self):
        return self._numel

    def element_size(self):
        return self._element_size


@pytest.fixture
def runtime(fake_runtime):
    lib = ctypes.CDLL(str(fake_runtime))
    lib.fake_log.restype = ctypes.c_char_p
    lib.fake_log()  # start with an empty log

    def log():
        return lib.fake_log().decode().splitlines()

    return fake_runtime, lib, log


@pytest.fixture(autouse=True)
def no_cached_runtime(monkeypatch):
    monkeypatch.setattr(kosan._runtime, "_default_runtime", None)
    monkeypatch.delenv("KOSAN_RUNTIME_LIB", raising=False)
    monkeypatch.delenv("KOSAN_RUNTIME", raising=False)


def test_register_a_pointer_by_path(runtime):
    path, _, log = runtime
    assert kosan.register_tensor(0x10000, nbytes=256, name="q", runtime=path) == 0x10000
    kosan.unregister_tensor(0x10000, runtime=path)
    assert log() == ["register 0x10000 256 q", "unregister 0x10000"]


def test_register_a_tensor_by_handle(runtime):
    _, lib, log = runtime
    tensor = FakeTensor(0x20000, numel=1000, element_size=2)
    kosan.register_tensor(tensor, name="k_cache", runtime=lib)
    kosan.unregister_tensor(tensor, runtime=lib)
    assert log() == ["register 0x20000 2000 k_cache", "unregister 0x20000"]


def test_a_typed_tensor_gives_its_dtype_and_shape(runtime):
    path, _, log = runtime
    tensor = FakeTensor(0x21000, numel=6, element_size=2, dtype="torch.bfloat16",
                        shape=(2, 3))
    kosan.register_tensor(tensor, name="w", runtime=path)
    kosan.unregister_tensor(tensor, runtime=path)
    kosan.register_tensor(0x22000, nbytes=16, name="p", runtime=path, dtype="float32",
                          shape=[4])
    kosan.unregister_tensor(0x22000, runtime=path)
    assert log() == ["tensor bf16 [2,3]", "register 0x21000 12 w", "unregister 0x21000",
                     "tensor f32 [4]", "register 0x22000 16 p", "unregister 0x22000"]


def test_a_runtime_without_register_tensor_gets_the_buffer(fake_untyped_runtime):
    lib = ctypes.CDLL(str(fake_untyped_runtime))
    lib.fake_log.restype = ctypes.c_char_p
    lib.fake_log()
    tensor = FakeTensor(0x23000, numel=4, element_size=4, dtype="torch.float32", shape=(4,))
    with kosan.registered(tensor, name="x", runtime=lib):
        pass
    assert lib.fake_log().decode().splitlines() == ["register 0x23000 16 x",
                                                    "unregister 0x23000"]


def test_registered_context_manager_unregisters_on_error(runtime):
    path, _, log = runtime
    with pytest.raises(RuntimeError):
        with kosan.registered(FakeTensor(0x30000, 4, 4), name="v", runtime=path) as ptr:
            assert ptr == 0x30000
            raise RuntimeError("the kernel failed")
    assert log() == ["register 0x30000 16 v", "unregister 0x30000"]


def test_refusals_raise_registration_error(runtime):
    path, _, log = runtime
    kosan.register_tensor(0x40000, nbytes=100, runtime=path)
    try:
        with pytest.raises(kosan.RegistrationError, match="partially overlaps"):
            kosan.register_tensor(0x40050, nbytes=100, name="bad", runtime=path)
    finally:
        kosan.unregister_tensor(0x40000, runtime=path)
    with pytest.raises(kosan.RegistrationError, match="no buffer is registered at 0x40000"):
        kosan.unregister_tensor(0x40000, runtime=path)
    assert log()[0] == "register 0x40000 100 "


def test_environment_variable_names_the_runtime(runtime, monkeypatch):
    path, _, log = runtime
    monkeypatch.setenv("KOSAN_RUNTIME_LIB", str(path))
    kosan.register_tensor(0x50000, nbytes=8, name="x")
    kosan.unregister_tensor(0x50000)
    assert log() == ["register 0x50000 8 x", "unregister 0x50000"]


def test_global_symbols_of_the_program(fake_runtime):
    # A program linked with the runtime exports it to ctypes.CDLL(None); a
    # library loaded RTLD_GLOBAL stands in for that program here.
    code = textwrap.dedent(f"""
        import ctypes, kosan
        lib = ctypes.CDLL({str(fake_runtime)!r}, mode=ctypes.RTLD_GLOBAL)
        lib.fake_log.restype = ctypes.c_char_p
        kosan.register_tensor(0x60000, nbytes=4, name="g")
        print(lib.fake_log().decode(), end="")
    """)
    done = run_python(code)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "register 0x60000 4 g\n"


def test_no_runtime_anywhere(tmp_path, monkeypatch):
    monkeypatch.setenv("KOSAN_RUNTIME", str(tmp_path / "libkosan_rt.so"))
    with pytest.raises(kosan.RuntimeNotFound) as error:
        kosan.register_tensor(0x70000, nbytes=4)
    message = str(error.value)
    assert "runtime=" in message and "KOSAN_RUNTIME" in message
    assert str(tmp_path / "libkosan_rt.so") in message


def test_library_without_the_runtime(tmp_path):
    # libc is a real library without kosan_register_buffer.
    with pytest.raises(kosan.RuntimeNotFound, match="neither is nor loaded the kosan runtime"):
        kosan.register_tensor(0x70000, nbytes=4, runtime="libc.so.6")
    with pytest.raises(kosan.RuntimeNotFound, match="cannot load"):
        kosan.register_tensor(0x70000, nbytes=4, runtime=tmp_path / "missing.so")


def test_pointer_needs_a_size(runtime):
    path, _, _ = runtime
    with pytest.raises(TypeError, match="nbytes"):
        kosan.register_tensor(0x80000, runtime=path)
    with pytest.raises(TypeError, match="cannot register a str"):
        kosan.register_tensor("0x80000", nbytes=4, runtime=path)
