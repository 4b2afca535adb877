import heapq, random
def makespan(durs, P=132, jitter=0.02, seed=0):
    rnd = random.Random(seed)
    heap = [(0.0, p) for p in range(P)]
    for d in durs:
        t, p = heapq.heappop(heap)
        heapq.heappush(heap, (t + d * (1 + rnd.uniform(-jitter, jitter)), p))
    return max(t for t, _ in heap)
for N, tiles_per_head, heads, f in ((1024, 6, 512, 0.55), (2048, 11, 256, 0.8), (4096, 22, 128, 0.55)):
    order = []
    for h in range(heads):
        order += [1.0] * (tiles_per_head - 1) + [f]
    ideal = sum(order) / 132
    base = sum(makespan(order, seed=s) for s in range(20)) / 20
    res = [f"N={N} ideal {ideal:.2f} head-order {base:.2f} (+{100*(base/ideal-1):.1f}%)"]
    for k in (44, 88, 132, 264):
        k = min(k, heads)
        moved = [f] * k
        o = []
        for h in range(heads):
            o += [1.0] * (tiles_per_head - 1) + ([f] if h < heads - k else [])
        o += moved
        m = sum(makespan(o, seed=s) for s in range(20)) / 20
        res.append(f"last {k} partial last {m:.2f} (+{100*(m/ideal-1):.1f}%)")
    print("; ".join(res))
print("---")
for f in (0.4, 0.55, 0.7):
    for N, tph, heads in ((1024, 6, 512), (4096, 22, 128)):
        order = []
        for h in range(heads):
            order += [1.0] * (tph - 1) + [f]
        ideal = sum(order) / 132
        base = sum(makespan(order, seed=s) for s in range(30)) / 30
        res = [f"f={f} N={N} head-order +{100*(base/ideal-1):.1f}%"]
        for k in (22, 33, 44, 66, 132):
            o = []
            for h in range(heads):
                o += [1.0] * (tph - 1) + ([f] if h < heads - k else [])
            o += [f] * k
            m = sum(makespan(o, seed=s) for s in range(30)) / 30
            res.append(f"k={k} +{100*(m/ideal-1):.1f}%")
        print("; ".join(res))
