"""Launch plans (flashio/launch_plans.py): a call on inputs seen before replays the launches recorded from
the first call instead of running the launcher's Python. On a GPU plans are on by default; under the
interpreter these tests turn them on (``FLASHIO_LAUNCH_PLANS=1``), where a replay launches the kernel objects
again with the recorded arguments, so what is checked here is the record: its key, buffers, operations and
argument substitution. The compiled-kernel launch itself is checked on the H200 by ``python -m flashio.check``,
which runs every fixed-length case twice and checks the replayed call against the references too."""

from dataclasses import replace

import pytest
import torch

import flashio
from flashio import configs, launch_plans, launchers
from flashio.kernels import backward as backward_kernels
from flashio.kernels import forward as forward_kernels
from helpers import check_against_reference, random_qkv, record_grids


@pytest.fixture
def plans_on(monkeypatch):
    monkeypatch.setenv("FLASHIO_LAUNCH_PLANS", "1")
    launch_plans.clear()
    yield
    launch_plans.clear()


@pytest.fixture
def launcher_calls(monkeypatch):
    """Counts the calls that went through the launchers' Python (describe() is their first step)."""
    calls = []
    original = launchers.describe

    def counting(*args, **kwargs):
        calls.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr(launchers, "describe", counting)
    return calls


def forward_backward(q, k, v, dout, **kwargs):
    out = flashio.attention(q, k, v, **kwargs)
    return (out.detach(), *torch.autograd.grad(out, (q, k, v), dout))


def test_a_second_call_on_the_same_inputs_replays_and_returns_the_same_tensors_values(plans_on, launcher_calls):
    q, k, v = random_qkv(1, 2, 2, 40, 40, 32, torch.bfloat16)
    dout = torch.randn_like(q)
    first = forward_backward(q, k, v, dout, is_causal=True)
    assert len(launcher_calls) == 2 and launch_plans.plan_count() == 2
    again = forward_backward(q, k, v, dout, is_causal=True)
    assert len(launcher_calls) == 2  # forward and backward both replayed
    for a, b in zip(first, again):
        assert torch.equal(a, b)  # the same kernels on the same inputs (the interpreter's atomics run in order)


@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
def test_a_replay_on_new_tensors_of_the_same_shape_matches_the_reference(plans_on, launcher_calls, causal):
    q, k, v = random_qkv(2, 4, 2, 33, 70, 64, torch.float16)
    forward_backward(q, k, v, torch.randn_like(q), is_causal=causal)
    q, k, v = random_qkv(2, 4, 2, 33, 70, 64, torch.float16)
    check_against_reference(lambda q, k, v: flashio.attention(q, k, v, is_causal=causal), q, k, v, causal=causal)
    assert len(launcher_calls) == 2


def test_replayed_outputs_are_fresh_tensors(plans_on):
    q, k, v = random_qkv(1, 2, 2, 40, 40, 32, torch.bfloat16, requires_grad=False)
    first = flashio.attention(q, k, v)
    second = flashio.attention(q, k, v)
    assert second.data_ptr() != first.data_ptr() and torch.equal(first, second)


def test_a_different_option_or_layout_records_its_own_plan(plans_on, launcher_calls):
    q, k, v = random_qkv(1, 2, 2, 40, 40, 32, torch.bfloat16, requires_grad=False)
    flashio.attention(q, k, v)
    flashio.attention(q, k, v, is_causal=True)
    flashio.attention(q, k, v, scale=0.5)
    flashio.attention(q.transpose(1, 2).contiguous().transpose(1, 2), k, v)  # same shape, other strides
    assert len(launcher_calls) == 4 and launch_plans.plan_count() == 4


def test_forgetting_the_tuned_choices_forgets_the_plans(plans_on, launcher_calls):
    q, k, v = random_qkv(1, 2, 2, 40, 40, 32, torch.bfloat16, requires_grad=False)
    flashio.attention(q, k, v)
    configs.clear_choices()
    flashio.attention(q, k, v)
    assert len(launcher_calls) == 2


def test_a_forced_kernel_path_is_part_of_the_key(plans_on, launcher_calls, monkeypatch):
    q, k, v = random_qkv(1, 2, 2, 40, 40, 32, torch.bfloat16, requires_grad=False)
    flashio.attention(q, k, v)
    monkeypatch.setenv("FLASHIO_FORWARD_PATH", "pointer")
    flashio.attention(q, k, v)
    assert len(launcher_calls) == 2


def test_a_call_that_timed_candidates_keeps_no_plan(plans_on, launcher_calls, monkeypatch):
    # A tuning call launches every candidate: recording it would replay the losers too.
    original = launchers._launch_forward

    def tuning(*args, **kwargs):
        configs._COUNTERS["measurements"] += 1
        return original(*args, **kwargs)

    monkeypatch.setattr(launchers, "_launch_forward", tuning)
    q, k, v = random_qkv(1, 2, 2, 40, 40, 32, torch.bfloat16, requires_grad=False)
    flashio.attention(q, k, v)
    assert launch_plans.plan_count() == 0
    flashio.attention(q, k, v)
    assert len(launcher_calls) == 2 and launch_plans.plan_count() == 0


def test_the_same_tensor_passed_as_query_key_and_value_is_not_recorded(plans_on, launcher_calls):
    # One object in three places would be one slot: a later call with three tensors would read q thrice.
    x, _, _ = random_qkv(1, 2, 2, 40, 40, 32, torch.bfloat16, requires_grad=False)
    flashio.attention(x, x, x)
    assert launch_plans.plan_count() == 0
    q, k, v = random_qkv(1, 2, 2, 40, 40, 32, torch.bfloat16, requires_grad=False)
    torch.testing.assert_close(flashio.attention(q, k, v), flashio.attention_reference(q, k, v),
                               atol=2e-2, rtol=0)  # bf16 output of unit-variance inputs: a few rounding steps
    assert launch_plans.plan_count() == 1


def test_dropout_and_block_masks_are_never_recorded(plans_on):
    q, k, v = random_qkv(1, 2, 2, 40, 40, 32, torch.bfloat16, requires_grad=False)
    flashio.attention(q, k, v, dropout_p=0.1)  # a new seed per call: a record would replay the first one
    flashio.attention(q, k, v, block_mask=torch.ones(1, 1, 1, 1, dtype=torch.bool), block_size=(64, 64))
    assert launch_plans.plan_count() == 0


def test_an_operation_on_a_tensor_from_outside_the_call_keeps_no_plan(plans_on):
    outside = torch.ones(3)

    def call():
        launch_plans.zero_(outside)
        return (launch_plans.empty((2,), dtype=torch.float32, device=torch.device("cpu")),)

    launch_plans.run(("test",), (torch.ones(1),), call)
    assert launch_plans.plan_count() == 0


def test_a_launch_on_a_tensor_from_outside_the_call_keeps_no_plan(plans_on):
    stray = torch.zeros(4)

    class Kernel:
        def __getitem__(self, grid):
            return lambda *args, **constants: None

    def call():
        launch_plans.launch(Kernel(), (1,), stray)
        return ()

    launch_plans.run(("test",), (torch.ones(1),), call)
    assert launch_plans.plan_count() == 0


def test_a_host_descriptor_argument_is_rebuilt_over_the_replays_own_input(plans_on):
    # v0.44: the role-split backward takes Q, K, V and dO as descriptors made on the host; a replay that passed the
    # recorded descriptor would point the kernel at the first call's tensors.
    launched = []

    class Kernel:
        def __getitem__(self, grid):
            return lambda *args, **constants: launched.append(args)

    def call_on(tensor):
        def call():
            descriptor = launchers.host_descriptor(tensor, launchers.strides_bhnd(tensor, "bhnd"), 1, 2, 8, 8, 64)
            launch_plans.launch(Kernel(), (1,), descriptor, tensor)
            return ()
        return call

    first, second = (torch.randn(1, 2, 8, 64, dtype=torch.bfloat16) for _ in range(2))
    launch_plans.run(("descriptor test",), (first,), call_on(first))
    assert launch_plans.plan_count() == 1
    launch_plans.run(("descriptor test",), (second,), call_on(first))  # replayed: call_on(first) is not run
    (recorded, replayed) = launched
    assert recorded[0].base is first and replayed[0].base is second and replayed[1] is second
    assert (replayed[0].shape, replayed[0].strides, replayed[0].block_shape) == \
        (recorded[0].shape, recorded[0].strides, recorded[0].block_shape)


def test_buffers_zeroed_in_the_record_are_zeroed_in_the_replay(plans_on):
    # Keys without any position: dQ is all zeros, set by an operation the record keeps (not by a kernel).
    q, k, v = random_qkv(1, 2, 2, 16, 0, 32, torch.bfloat16)
    dout = torch.randn_like(q)
    for _ in range(2):
        dq, dk, dv = launchers.attention_backward(dout, q, k, v, torch.zeros_like(q),
                                                  torch.full((1, 2, 16), float("-inf")), layout="bhnd",
                                                  softmax_scale=0.2, causal=False, dropout_p=0.0, seed=0)
        assert torch.equal(dq, torch.zeros_like(q))
    assert launch_plans.plan_count() == 1
    (plan,) = launch_plans._PLANS.values()
    assert [step[0] for step in plan.steps] == ["zero", "zero", "zero"]


def test_a_replay_launches_the_recorded_kernels(plans_on, monkeypatch):
    q, k, v = random_qkv(1, 2, 2, 40, 40, 32, torch.bfloat16)
    dout = torch.randn_like(q)
    forward_grids = record_grids(monkeypatch, forward_kernels, "attention_forward_kernel")
    preprocess_grids = record_grids(monkeypatch, backward_kernels, "attention_backward_preprocess_kernel")
    forward_backward(q, k, v, dout)
    forward_backward(q, k, v, dout)
    assert len(forward_grids) == 2 and forward_grids[0] == forward_grids[1]
    assert len(preprocess_grids) == 2 and preprocess_grids[0] == preprocess_grids[1]


def test_plans_are_off_under_the_interpreter_unless_asked_for(monkeypatch):
    monkeypatch.delenv("FLASHIO_LAUNCH_PLANS", raising=False)
    assert not launch_plans.enabled(torch.ones(1))
    monkeypatch.setenv("FLASHIO_LAUNCH_PLANS", "0")
    assert not launch_plans.enabled(torch.ones(1))
    monkeypatch.setenv("FLASHIO_LAUNCH_PLANS", "1")
    assert launch_plans.enabled(torch.ones(1))


def test_the_gpu_check_runs_a_case_twice_and_checks_the_replay(plans_on, launcher_calls):
    from flashio import check

    case = check.CorrectnessCase("tiny causal GQA", 1, 4, 2, 40, 56, 32, causal=True)
    result = check.run_correctness_case(case, device="cpu")
    assert result["ok"], result
    assert result["details"][0] == "first call, replay"  # a CUDA graph's run is added on a GPU only
    assert len(launcher_calls) == 2  # the first call's forward and backward; the second call replayed both


class _CompileRecorder:
    """A stand-in for a Triton kernel: records whether it was compiled (warmup) or launched."""

    def __init__(self, fail=False):
        self.warmups, self.launches, self.fail = [], [], fail

    def warmup(self, *args, grid, **constants):
        if self.fail:
            raise RuntimeError("does not compile")
        self.warmups.append((grid, args, constants))

    def __getitem__(self, grid):
        return lambda *args, **constants: self.launches.append((grid, args, constants))


def test_compiling_concurrently_compiles_every_candidate_and_launches_none(monkeypatch):
    monkeypatch.setenv("FLASHIO_COMPILE_THREADS", "4")
    kernel, buffer = _CompileRecorder(), torch.ones(4)
    jobs = [lambda n=n: (launch_plans.zero_(buffer), launch_plans.launch(kernel, (n,), buffer, BLOCK=n))
            for n in (16, 32, 64)]
    launch_plans.compile_concurrently(jobs)
    assert [grid for grid, _, _ in kernel.warmups] == [(16,), (32,), (64,)]
    assert kernel.launches == [] and torch.equal(buffer, torch.ones(4))  # nothing launched, nothing zeroed
    launch_plans.launch(kernel, (8,), buffer)  # afterwards launches run again
    assert len(kernel.launches) == 1


def test_a_candidate_that_fails_to_compile_is_left_to_its_timing(monkeypatch):
    monkeypatch.setenv("FLASHIO_COMPILE_THREADS", "2")
    failing, working = _CompileRecorder(fail=True), _CompileRecorder()
    launch_plans.compile_concurrently([lambda: launch_plans.launch(failing, (1,)),
                                       lambda: launch_plans.launch(working, (1,))])
    assert len(working.warmups) == 1


def test_one_compile_thread_leaves_every_compile_to_the_first_launch(monkeypatch):
    monkeypatch.setenv("FLASHIO_COMPILE_THREADS", "1")
    kernel = _CompileRecorder()
    launch_plans.compile_concurrently([lambda: launch_plans.launch(kernel, (1,))] * 2)
    assert kernel.warmups == [] and kernel.launches == []


@pytest.mark.parametrize("value", ["0", "-2", "many"])
def test_a_bad_compile_thread_count_is_an_error_naming_the_variable(monkeypatch, value):
    monkeypatch.setenv("FLASHIO_COMPILE_THREADS", value)
    with pytest.raises(ValueError, match=f"FLASHIO_COMPILE_THREADS must be a positive integer, got '{value}'"):
        launch_plans.compile_threads()


def test_gathering_compiles_launches_zeroes_copies_and_records_nothing(plans_on):
    kernel, buffer = _CompileRecorder(), torch.ones(4)
    with launch_plans.gathering_compiles() as jobs:
        assert launch_plans.gathered() is jobs
        assert launch_plans.launch(kernel, (1,), buffer) is None
        launch_plans.zero_(buffer)
        launch_plans.copy_(buffer, torch.zeros(4))
    assert kernel.warmups == [] and kernel.launches == [] and torch.equal(buffer, torch.ones(4))
    assert launch_plans.gathered() is None
    launch_plans.launch(kernel, (1,), buffer)  # afterwards launches run again
    assert len(kernel.launches) == 1


def _cuda_looking_call(monkeypatch):
    """(query, problem) of a call that looks like a GPU's to ``launchers._pick`` (whose choices are timed only on a
    GPU), autotuning on and no tuning file, the choices cleared."""
    from types import SimpleNamespace

    monkeypatch.setenv("FLASHIO_AUTOTUNE", "1")
    monkeypatch.setenv("FLASHIO_TUNING_CACHE", "off")
    monkeypatch.setattr(launchers, "device_capability", lambda device: (8, 0))
    monkeypatch.setattr(launchers, "device_name", lambda device: "a GPU")
    configs.clear_choices()
    q = SimpleNamespace(is_cuda=True, device="gpu", dtype=torch.bfloat16)
    return q, launchers.describe(torch.empty(1, 2, 256, 64), torch.empty(1, 2, 256, 64), "bhnd", None)


def test_a_tuned_choice_inside_gathering_adds_what_it_would_time_and_goes_on_with_the_first(monkeypatch):
    # A CUDA-looking query (the choice is timed only on a GPU): the candidates the tuner would time become
    # compile jobs, none is launched or timed, and no choice is cached.
    q, problem = _cuda_looking_call(monkeypatch)
    launched = []
    first, second = configs.TileConfig(64, 64), configs.TileConfig(128, 64)
    with launch_plans.gathering_compiles() as jobs:
        chosen = launchers._pick("test_kernel", problem, q, configs.INTERPRETER_FORWARD, {64: (first, second)},
                                 launched.append, (), None)
    assert chosen == first and launched == [] and configs.cached_choices() == {}
    for job in jobs:
        job()
    assert launched == [first, second]


@pytest.mark.parametrize("causal, expected", [(True, 2), (False, 3)], ids=["causal", "non-causal"])
def test_candidates_differing_only_in_non_causal_options_are_one_candidate_for_a_causal_call(monkeypatch, causal,
                                                                                            expected):
    # d=128's fused backward lists its persistent form with the split tail and with non-causal claims: for a
    # causal call both run the same kernel, so only the first is compiled and timed.
    q, problem = _cuda_looking_call(monkeypatch)
    plain = configs.TileConfig(64, 64)
    persistent = configs.TileConfig(64, 128, 8, 3, "gluon", persistent=True, balanced_schedule=True)
    split_tail, claims = replace(persistent, split_tail=True), replace(persistent, noncausal_claims=True)
    launched = []
    with launch_plans.gathering_compiles() as jobs:
        launchers._pick("test_kernel", problem, q, configs.INTERPRETER_FORWARD, {64: (plain, split_tail, claims)},
                        launched.append, (causal,), None, causal=causal)
    for job in jobs:
        job()
    assert launched == [plain, split_tail, claims][:expected]
    configs.clear_choices()


def test_a_first_backward_compiles_the_preprocess_kernel_and_every_strategys_candidates_in_one_batch(monkeypatch):
    batches = []
    monkeypatch.setattr(launch_plans, "compile_concurrently", lambda jobs: batches.append(list(jobs)))
    kernel = _CompileRecorder()
    preprocess = lambda: None
    fused_job, dkdv_job, dq_job = (lambda: None), (lambda: None), (lambda: None)

    def fused():  # a strategy: its tuned kernel adds its candidates, its launch does nothing
        launch_plans.gathered().append(fused_job)
        launch_plans.launch(kernel, (1,))

    def separate():
        launch_plans.gathered().extend([dkdv_job, dq_job])
        launch_plans.launch(kernel, (2,))

    def broken():
        raise RuntimeError("left to its timing")

    launchers._compile_first_backward(preprocess, [fused, broken, separate])
    assert batches == [[preprocess, fused_job, dkdv_job, dq_job]]
    assert kernel.launches == [] and kernel.warmups == []


def test_launchers_are_built_once_per_signature_and_a_failing_build_is_left_to_the_first_launch(monkeypatch):
    from concurrent.futures import ThreadPoolExecutor
    from types import SimpleNamespace

    built = []

    def launcher(source, metadata):
        built.append(source.signature)
        if source.signature == "broken":
            raise RuntimeError("no C compiler")

    monkeypatch.setattr(launch_plans, "driver", SimpleNamespace(active=SimpleNamespace(launcher_cls=launcher)))
    kernel = lambda signature: SimpleNamespace(src=SimpleNamespace(fn="f", signature=signature, constants={}),
                                               metadata=SimpleNamespace())
    with ThreadPoolExecutor(2) as pool:
        launch_plans._build_launchers(pool, [kernel("a"), kernel("a"), kernel("b"), kernel("broken")])
    assert sorted(built) == ["a", "b", "broken"]



def test_buffers_that_compile_jobs_allocate_are_not_recorded_into_the_plan(plans_on, monkeypatch):
    # A first backward whose choices all come from the tuning file compiles them in one batch without timing
    # anything, so its call keeps a plan: the compile jobs' allocations must not become buffers of that plan.
    monkeypatch.setenv("FLASHIO_COMPILE_THREADS", "2")
    kernel, x = _CompileRecorder(), torch.ones(4)

    def job():
        launch_plans.launch(kernel, (1,), launch_plans.empty((8,), dtype=torch.float32, device=x.device))

    def call():
        launch_plans.compile_concurrently([job, job])
        out = launch_plans.empty_like(x)
        launch_plans.copy_(out, x)
        return (out,)

    launch_plans.run(("compile jobs",), [x], call)
    assert len(kernel.warmups) == 2
    assert launch_plans._PLANS[("compile jobs",)].buffers == (((4,), (1,), torch.float32),)


def test_gathering_with_placeholders_allocates_on_the_meta_device_and_only_then():
    source = torch.empty(3, 5).t()  # strides (1, 3): empty_like keeps them
    with launch_plans.gathering_compiles(placeholders=True):
        fresh = launch_plans.empty((2, 4), dtype=torch.float32, device=source.device)
        like = launch_plans.empty_like(source)
    assert fresh.is_meta and fresh.shape == (2, 4) and fresh.dtype == torch.float32
    assert like.is_meta and like.stride() == source.stride()
    with launch_plans.gathering_compiles():
        assert not launch_plans.empty((2,), dtype=torch.float32, device=source.device).is_meta
    assert not launch_plans.empty_like(source).is_meta


def test_a_batch_also_compiles_the_jobs_of_its_provider_and_asks_it_only_when_it_runs(monkeypatch):
    own, along = _CompileRecorder(), _CompileRecorder()
    provided = []

    def provider():
        provided.append(True)
        return [lambda: launch_plans.launch(along, (7,))]

    monkeypatch.setenv("FLASHIO_COMPILE_THREADS", "1")  # no batch: the provider is not asked
    launch_plans.compile_concurrently([lambda: launch_plans.launch(own, (1,))], more=provider)
    assert provided == [] and own.warmups == [] and along.warmups == []
    monkeypatch.setenv("FLASHIO_COMPILE_THREADS", "2")
    launch_plans.compile_concurrently([lambda: launch_plans.launch(own, (1,))], more=provider)  # one job of its own
    assert provided == [True]
    assert [grid for grid, _, _ in along.warmups] == [(7,)]
    assert [grid for grid, _, _ in own.warmups] == [(1,)]


def test_a_provider_that_fails_adds_nothing_to_the_batch(monkeypatch):
    monkeypatch.setenv("FLASHIO_COMPILE_THREADS", "2")
    own = _CompileRecorder()

    def provider():
        raise RuntimeError("cannot gather")

    launch_plans.compile_concurrently([lambda: launch_plans.launch(own, (1,)), lambda: launch_plans.launch(own, (2,))],
                                      more=provider)
    assert [grid for grid, _, _ in own.warmups] == [(1,), (2,)]


def test_the_backwards_compile_jobs_are_gathered_on_placeholders_and_lost_only_when_it_fails(monkeypatch):
    q = torch.empty(1, 2, 8, 16)
    seen = []

    def backward(grad_out, q, k, v, out, lse, **options):
        dq = launch_plans.empty_like(q)
        seen.append((grad_out is out, dq.is_meta, options["deterministic"]))
        launch_plans.gathered().append("a job")

    monkeypatch.setattr(launchers, "_launch_backward", backward)
    jobs = launchers._backward_compile_jobs(q, q, q, q, q, deterministic=True, layout="bhnd")
    assert jobs == ["a job"] and seen == [(True, True, True)]

    def failing(*args, **options):
        launch_plans.gathered().append("a job")
        raise RuntimeError("no such kernel")

    monkeypatch.setattr(launchers, "_launch_backward", failing)
    assert launchers._backward_compile_jobs(q, q, q, q, q, layout="bhnd") == []
    assert launch_plans.gathered() is None


def test_a_first_backward_inside_a_gathering_adds_its_jobs_there_and_compiles_nothing(monkeypatch):
    # A forward's first call gathering its backward's compiles (COMPILE_BACKWARD_WITH_FORWARD): the backward's
    # preprocess kernel and candidates join the forward's list, for the forward's batch.
    batches = []
    monkeypatch.setattr(launch_plans, "compile_concurrently", lambda jobs, more=None: batches.append(list(jobs)))
    preprocess, candidate = (lambda: None), (lambda: None)
    with launch_plans.gathering_compiles() as outer:
        outer.append("a forward candidate")
        launchers._compile_first_backward(preprocess, [lambda: launch_plans.gathered().append(candidate)])
        assert launch_plans.gathered() is outer
    assert outer == ["a forward candidate", preprocess, candidate] and batches == []
