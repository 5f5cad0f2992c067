"""Reading a KernelBench problem and a candidate without running them.

A problem file defines ``Model`` (a torch.nn.Module), ``get_inputs()`` and
``get_init_inputs()``; a candidate defines ``ModelNew``. Both are checked
here by parsing them (no torch, no GPU), so that a broken file is one line of
trouble before any process is started, and so that the judge can tell which
module-level sizes it may change: an integer assigned at module level that
``get_inputs()`` reads and ``get_init_inputs()`` does not (changing it needs
no new model). ``batch_size`` is the batch dimension when ``get_inputs()``
reads it, as in KernelBench's problems.

A problem may say more with a literal dict at module level::

    KOSAN_JUDGE = {
        "sizes": {"N": [1000, 4097]},   # values to try besides the problem's own
        "batch": "batch_size",          # the batch variable; None: no batch check
    }
"""

from __future__ import annotations

import ast
import dataclasses
import os


class ProblemError(Exception):
    """A problem or candidate file the judge cannot use (one line, naming the file)."""


@dataclasses.dataclass
class Problem:
    path: str
    #: module-level integer variables and their values
    sizes: dict[str, int]
    #: the sizes that may be changed (read by get_inputs only), in file order
    variable: list[str]
    #: values to try per variable, besides the problem's own
    size_values: dict[str, list[int]]
    #: the batch variable, or None
    batch: str | None


def _parse(path: str, what: str) -> ast.Module:
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as error:
        raise ProblemError(f"cannot read the {what} {path}: {error.strerror}") from None
    except UnicodeDecodeError:
        raise ProblemError(f"{path}: the {what} is not UTF-8 text") from None
    try:
        return ast.parse(text, filename=path)
    except SyntaxError as error:
        raise ProblemError(f"{path}:{error.lineno}: syntax error in the {what}: {error.msg}") from None


def _top_level(tree: ast.Module) -> dict[str, ast.AST]:
    names: dict[str, ast.AST] = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names[node.name] = node
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    names[target.id] = node
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names[node.target.id] = node
    return names


def _int_value(node: ast.AST) -> int | None:
    value = node.value if isinstance(node, (ast.Assign, ast.AnnAssign)) else None
    if value is None:
        return None
    try:
        result = ast.literal_eval(value)
    except (ValueError, SyntaxError, TypeError):
        # Simple arithmetic of constants, as in `dim = 4096 * 4`.
        if isinstance(value, ast.BinOp) and isinstance(value.op, (ast.Mult, ast.Add, ast.Sub,
                                                                  ast.FloorDiv, ast.Pow)):
            try:
                result = eval(compile(ast.Expression(value), "<size>", "eval"),
                              {"__builtins__": {}}, {})
            except Exception:
                return None
        else:
            return None
    if isinstance(result, bool) or not isinstance(result, int):
        return None
    return result


def _names_read(function: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(function) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def default_alternative(value: int) -> int | None:
    """The size tried besides a problem's own: about three quarters of it,
    and never a multiple of 2 (so not of any block size) where it can be odd."""
    if value < 2:
        return None
    alt = value * 3 // 4
    if alt % 2 == 0:
        alt += 1
    return alt if alt != value and alt >= 1 else None


def load_problem(path: str, *, batch: str | None = "", sizes: dict[str, list[int]] | None = None,
                 vary: bool = True) -> Problem:
    """Checks a problem file and finds its sizes.

    batch: "" takes the problem's declaration (or batch_size), None turns the
    batch check off, a name picks that variable. sizes: values given on the
    command line, which replace the problem's and the default ones.
    """
    path = os.path.abspath(path)
    tree = _parse(path, "problem")
    names = _top_level(tree)
    for required, kind in (("Model", ast.ClassDef), ("get_inputs", ast.FunctionDef),
                           ("get_init_inputs", ast.FunctionDef)):
        node = names.get(required)
        if node is None:
            raise ProblemError(f"{path}: not a KernelBench problem: no {required} "
                               f"{'class' if kind is ast.ClassDef else 'function'} at module level")
        if not isinstance(node, kind):
            raise ProblemError(f"{path}: {required} must be a "
                               f"{'class' if kind is ast.ClassDef else 'function'}")

    declared: dict = {}
    if "KOSAN_JUDGE" in names:
        node = names["KOSAN_JUDGE"]
        try:
            declared = ast.literal_eval(node.value)
        except (ValueError, SyntaxError, TypeError, AttributeError):
            raise ProblemError(f"{path}:{node.lineno}: KOSAN_JUDGE must be a literal dict") from None
        if not isinstance(declared, dict) or set(declared) - {"sizes", "batch"}:
            raise ProblemError(f"{path}:{node.lineno}: KOSAN_JUDGE takes a dict with the keys "
                               "'sizes' and 'batch'")

    ints = {name: v for name, node in names.items()
            if isinstance(node, (ast.Assign, ast.AnnAssign)) and (v := _int_value(node)) is not None}
    inputs_read = _names_read(names["get_inputs"])
    init_read = _names_read(names["get_init_inputs"])
    variable = [n for n in ints if n in inputs_read and n not in init_read]

    values: dict[str, list[int]] = {}
    declared_sizes = declared.get("sizes", {})
    if not isinstance(declared_sizes, dict):
        raise ProblemError(f"{path}: KOSAN_JUDGE['sizes'] must map size names to lists of integers")
    for source, given in (("KOSAN_JUDGE", declared_sizes), ("--size", sizes or {})):
        for name, vals in given.items():
            if name not in ints:
                raise ProblemError(f"{path}: {source} names the size {name!r}, which is not an "
                                   f"integer at module level (sizes: {', '.join(ints) or 'none'})")
            if name in init_read:
                raise ProblemError(f"{path}: {source} varies {name!r}, which get_init_inputs() "
                                   "reads: the model would change with it")
            if not isinstance(vals, list) or not vals or \
                    not all(isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in vals):
                raise ProblemError(f"{path}: {source}: the values of {name!r} must be a list of "
                                   "positive integers")
            values[name] = list(vals)
            if name not in variable:
                variable.append(name)
    if not vary:
        values = {}
    else:
        for name in variable:
            if name not in values:
                alt = default_alternative(ints[name])
                values[name] = [alt] if alt is not None else []
        values = {n: v for n, v in values.items() if v}

    if batch == "":
        batch = declared.get("batch", "batch_size" if "batch_size" in variable else None)
    if batch is not None:
        if not isinstance(batch, str) or batch not in ints:
            raise ProblemError(f"{path}: the batch variable {batch!r} is not an integer at module "
                               "level")
        if batch not in inputs_read:
            raise ProblemError(f"{path}: the batch variable {batch!r} is not read by get_inputs()")
    return Problem(path=path, sizes=ints, variable=variable, size_values=values, batch=batch)


def check_candidate(path: str) -> str:
    """Checks that a candidate file defines ModelNew; returns its absolute path."""
    path = os.path.abspath(path)
    names = _top_level(_parse(path, "candidate"))
    if not isinstance(names.get("ModelNew"), ast.ClassDef):
        raise ProblemError(f"{path}: not a KernelBench candidate: no ModelNew class at module level")
    return path


def size_configurations(problem: Problem) -> list[dict[str, int]]:
    """The problem's own sizes first, then one configuration per position in
    the value lists (a shorter list repeats its last value)."""
    configs = [{n: problem.sizes[n] for n in problem.variable}]
    count = max((len(v) for v in problem.size_values.values()), default=0)
    for i in range(count):
        config = dict(configs[0])
        for name, vals in problem.size_values.items():
            config[name] = vals[min(i, len(vals) - 1)]
        if config not in configs:
            configs.append(config)
    return configs
