"""Stand-ins shared by the timing tests: callables that carry a label instead of running a kernel, and
prepared systems made of them, so that a stand-in timer can record which call it was asked to time."""

from flashio.bench import sweep


def labelled(label: str):
    """A callable that does nothing and is known by ``label`` to the stand-in timers."""
    fn = lambda: None
    fn.label = label
    return fn


def prepared(name: str, backward: bool) -> sweep._Prepared:
    """A prepared system ``name`` whose forward is labelled "<name> fwd" and, with ``backward``, whose
    forward+backward is labelled "<name> fwdbwd"."""
    return sweep._Prepared(labelled(f"{name} fwd"), labelled(f"{name} fwdbwd") if backward else None, [], {}, 0.0)
