"""benchmarks/step_trace.py's timeline of a held step (``--hold``): per position in the step, the GPU's gap before
the operation and its duration, medians over the steps; read from profiler spans without a GPU here."""

from .scripts import load_benchmark_script


def _spans(gaps_by_step):
    """Spans (name, start µs, end µs) of steps each queued behind a sleep kernel: a forward (50 µs) and a backward
    (70 µs) after the given gaps."""
    spans, clock = [], 0.0
    for forward_gap, backward_gap in gaps_by_step:
        spans.append(("spin_kernel(long)", clock, clock + 100))
        clock += 100 + forward_gap
        spans.append(("forward", clock, clock + 50))
        clock += 50 + backward_gap
        spans.append(("backward", clock, clock + 70))
        clock += 70
    return spans


def test_a_held_steps_timeline_gives_the_median_gap_and_duration_of_each_operation():
    step_trace = load_benchmark_script("step_trace")
    timeline = step_trace.step_timeline(_spans([(1.0, 2.0), (3.0, 1.0), (2.0, 9.0)]), steps=3)
    assert timeline == [("forward", 2.0, 50.0), ("backward", 2.0, 70.0)]


def test_steps_whose_operations_differ_give_no_timeline():
    step_trace = load_benchmark_script("step_trace")
    spans = _spans([(1.0, 1.0), (1.0, 1.0)])
    spans.append(("an extra copy", spans[-1][2] + 1, spans[-1][2] + 2))  # the second step has one operation more
    assert step_trace.step_timeline(spans, steps=2) == []
    assert step_trace.step_timeline(spans, steps=3) == []  # the sleeps do not match the steps traced
