"""Lists the symbols of every CUDA device image (ELF, EM_CUDA) embedded in a
file: one line per image, "image relocatable|linked sm_XX", then one line
per defined symbol, "  FUNC|OBJECT global|local name". Images are found by
their ELF headers; fatbinary leaves cubins uncompressed by default."""
import struct
import sys

EM_CUDA = 190
ET_EXEC = 2


def images(data):
    at = data.find(b"\x7fELF\x02\x01")
    while at >= 0:
        if struct.unpack_from("<H", data, at + 18)[0] == EM_CUDA:
            yield at
        at = data.find(b"\x7fELF\x02\x01", at + 1)


def symbols(data, base):
    shoff, = struct.unpack_from("<Q", data, base + 0x28)
    shentsize, shnum = struct.unpack_from("<HH", data, base + 0x3A)
    sections = [struct.unpack_from("<IIQQQQIIQQ", data, base + shoff + i * shentsize)
                for i in range(shnum)]
    for sh in sections:
        if sh[1] != 2:  # SHT_SYMTAB
            continue
        strtab = sections[sh[6]]
        for off in range(sh[4], sh[4] + sh[5], 24):
            name, info, _, shndx, _, _ = struct.unpack_from("<IBBHQQ", data, base + off)
            bind = {0: "local", 1: "global", 2: "weak"}.get(info >> 4)
            if not bind or shndx == 0:  # defined only
                continue
            kind = {1: "OBJECT", 2: "FUNC"}.get(info & 0xF)
            if not kind:
                continue
            at = base + strtab[4] + name
            yield kind, bind, data[at:data.index(b"\0", at)].decode()


def main(path):
    data = open(path, "rb").read()
    for base in images(data):
        etype, = struct.unpack_from("<H", data, base + 16)
        flags, = struct.unpack_from("<I", data, base + 0x30)
        # The architecture is in e_flags: bits 8-15 for CUDA 12+'s ELF ABI.
        sm = (flags >> 8) & 0xFF
        print("image %s sm_%d" % ("linked" if etype == ET_EXEC else "relocatable", sm))
        for kind, bind, name in sorted(symbols(data, base)):
            print("  %s %s %s" % (kind, bind, name))


if __name__ == "__main__":
    main(sys.argv[1])
