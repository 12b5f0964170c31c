# 3-D Poisson 100^3, general, the same entries as bench/setup_bench.py --make (row-major order here)
import sys
p = 100
n = p ** 3
out = open(sys.argv[1], "w")
lines = []
count = 0
rows = []
for z in range(p):
    for y in range(p):
        for x in range(p):
            r = (z * p + y) * p + x
            for c, v in ((r - p * p, z > 0), (r - p, y > 0), (r - 1, x > 0)):
                if v:
                    rows.append("%d %d -1.000000000000000e+00\n" % (r + 1, c + 1))
            rows.append("%d %d 6.000000000000000e+00\n" % (r + 1, r + 1))
            for c, v in ((r + 1, x + 1 < p), (r + p, y + 1 < p), (r + p * p, z + 1 < p)):
                if v:
                    rows.append("%d %d -1.000000000000000e+00\n" % (r + 1, c + 1))
out.write("%%%%MatrixMarket matrix coordinate real general\n%d %d %d\n" % (n, n, len(rows)))
out.writelines(rows)
