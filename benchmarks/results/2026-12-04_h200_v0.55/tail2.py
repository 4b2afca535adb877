import heapq, random
def makespan(durs, P=132, jitter=0.02, seed=0):
    rnd = random.Random(seed); heap = [(0.0, p) for p in range(P)]
    for d in durs:
        t, p = heapq.heappop(heap); heapq.heappush(heap, (t + d * (1 + rnd.uniform(-jitter, jitter)), p))
    return max(t for t, _ in heap)
def avg(o): return sum(makespan(o, seed=s) for s in range(30)) / 30
for N, tph, heads, f in ((1024, 6, 512, 0.55), (2048, 11, 256, 0.8), (4096, 22, 128, 0.55)):
    k = 44
    o = []
    for h in range(heads):
        o += [1.0] * (tph - 1) + ([f] if h < heads - k else [])
    o += [f] * k
    ideal = sum(o) / 132
    res = [f"N={N} moved +{100*(avg(o)/ideal-1):.1f}%"]
    for fp in (0.4, 0.5):
        for R in (44, 88, 132):
            # split the last R full tiles before the moved short ones into 3 pieces, pieces last
            full_idx = [i for i, d in enumerate(o) if d == 1.0][-R:]
            o2 = [d for i, d in enumerate(o) if i not in set(full_idx)] + [fp] * (3 * R)
            work = sum(o2) / 132
            res.append(f"fp={fp} R={R} +{100*(avg(o2)/ideal-1):.1f}%")
    print("; ".join(res))
