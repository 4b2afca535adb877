import heapq, random, sys
sys.path.insert(0, "src")  # run from the repository root
from flashio import schedules
def run(order, dur, P=132, jitter=0.03, seed=0, lookahead=True):
    """each program: claims next when it STARTS its current tile (lookahead) or when it finishes it."""
    rnd = random.Random(seed)
    # event: (time at which program claims next, program, time program becomes free)
    free = [0.0] * P
    claim_heap = [(0.0, p) for p in range(P)]
    heapq.heapify(claim_heap)
    for tile in order:
        t, p = heapq.heappop(claim_heap)
        start = max(free[p], t)
        d = dur(tile) * (1 + rnd.uniform(-jitter, jitter))
        free[p] = start + d
        heapq.heappush(claim_heap, (start if lookahead else free[p], p))
    return max(free), sum(free) / P
bph, heads = 8, 256
work = schedules.causal_forward_block_work(1024, 1024, 128, 128)
dur = lambda tile: 1.06 * work[tile % bph] + 2.4
for tail_rounds in (0, 1, 2, 3, 4):
    order = schedules.claim_order(bph, heads, 132, work, tail_rounds=tail_rounds) if tail_rounds else schedules.claim_order(bph, heads, 132, work, tail_rounds=0)
    ideal = sum(dur(t) for t in order) / 132
    for la in (True, False):
        ms = [run(order, dur, seed=s, lookahead=la) for s in range(20)]
        m = sum(x[0] for x in ms) / 20
        print(f"tail_rounds={tail_rounds} lookahead={la}: ideal {ideal:.1f} makespan {m:.1f} (+{100*(m/ideal-1):.1f}%)")
