# gzip-variants.py DIR: write gzip files that exercise an inflater's edges
# into DIR (deterministic: a fixed seed), one NAME.gz each, and print
# their count. Members with a name, a comment, an extra field, a header
# CRC; stored (level 0) and incompressible data; an empty member; several
# members one after the other; a member boundary at each of 14 places
# around the 64 KiB the reader reads at a time. Each but the boundary
# ones also: followed by garbage or by zero bytes, its last CRC or ISIZE
# wrong (-crc, -size), cut at 11 places (-cutN: the first N bytes), and
# one bit flipped at 3 places (-flipN: byte N).
import zlib, struct, random, os, sys
out = sys.argv[1]
rnd = random.Random(7)
def text(n):
    w = [b'{"ph": "X", "name": "aten::mm", "ts": ', b'"cat": "kernel", ', b'"args": {"External id": ', b'}, ', b'\n']
    s = bytearray()
    while len(s) < n:
        s += rnd.choice(w) + str(rnd.randrange(10**9)).encode()
    return bytes(s[:n])
def noise(n):
    return bytes(rnd.randrange(256) for _ in range(n))
def member(data, level=6, hdr=b"", flags=0, wbits=-15, mtime=0):
    c = zlib.compressobj(level, zlib.DEFLATED, wbits)
    body = c.compress(data) + c.flush()
    h = b"\x1f\x8b\x08" + bytes([flags]) + struct.pack("<I", mtime) + b"\x00\x03" + hdr
    if flags & 2:
        h += struct.pack("<H", zlib.crc32(h) & 0xffff)
    return h + body + struct.pack("<II", zlib.crc32(data), len(data) & 0xffffffff)
files = {}
d1 = text(300000); d2 = text(70000) + noise(5000); d3 = noise(200000)
files["plain"] = member(d1)
files["fname"] = member(d1, flags=8, hdr=b"trace.json\x00")
files["comment"] = member(d2, flags=16, hdr=b"a comment\x00")
files["extra"] = member(d2, flags=4, hdr=struct.pack("<H", 6) + b"AB\x02\x00xy")
files["hcrc"] = member(d2, flags=2 | 8, hdr=b"n\x00")
files["stored"] = member(d3, level=0)
files["noise"] = member(d3, level=9)
files["empty"] = member(b"")
files["multi"] = member(d1) + member(b"") + member(d2, level=1) + member(d3, level=0)
# a member boundary at each place around the 64 KiB read
for k in range(0, 40, 3):
    a = member(text(65536 - 120 - k), level=0)
    files["edge%02d" % k] = a + member(d2)
for name, b in list(files.items()):
    if name.startswith("edge"):
        continue
    files[name + "-trail"] = b + b"garbage"
    files[name + "-zeros"] = b + b"\x00" * 10
    files[name + "-crc"] = b[:-8] + bytes([b[-8] ^ 1]) + b[-7:]
    files[name + "-size"] = b[:-4] + bytes([b[-4] ^ 1]) + b[-3:]
    for cut in sorted(set([1, 2, 9, 10, 11, 20, len(b) // 2, len(b) - 9, len(b) - 8, len(b) - 5, len(b) - 1])):
        if 0 < cut < len(b):
            files["%s-cut%d" % (name, cut)] = b[:cut]
    for j in range(3):
        pos = rnd.randrange(10, max(11, len(b) - 8))
        files["%s-flip%d" % (name, pos)] = b[:pos] + bytes([b[pos] ^ (1 << rnd.randrange(8))]) + b[pos + 1:]
os.makedirs(out, exist_ok=True)
for name, b in files.items():
    open(os.path.join(out, name + ".gz"), "wb").write(b)
print(len(files))
