"""``flashio report``: arguments, errors (exit code 2 with a message) and exit codes."""

from __future__ import annotations

import pytest

from flashio.cli import build_parser, main
from flashio.report import cli as report_cli
from flashio.report.builder import ReportResult


def _exit(argv) -> int:
    with pytest.raises(SystemExit) as info:
        main(argv)
    return info.value.code


def test_report_defaults_to_folder_report_with_smoke_and_bench():
    args = build_parser().parse_args(["report"])
    assert (args.out, args.smoke, args.bench, args.gpu) == ("report", True, True, None)


def test_report_needs_kernels_so_the_interpreter_is_chosen_without_gpu():
    assert build_parser().parse_args(["report"]).needs_kernels is True


def test_no_smoke_and_no_bench_switch_the_parts_off():
    args = build_parser().parse_args(["report", "--out", "x", "--no-smoke", "--no-bench"])
    assert (args.out, args.smoke, args.bench) == ("x", False, False)


def test_demo_subcommand_is_still_registered():
    assert build_parser().parse_args(["demo"]).command == "demo"


def test_out_naming_a_file_exits_2(tmp_path):
    target = tmp_path / "a_file"
    target.write_text("not a folder")
    assert _exit(["report", "--out", str(target), "--no-smoke"]) == 2


def test_out_naming_a_file_says_so(tmp_path, capsys):
    target = tmp_path / "a_file"
    target.write_text("not a folder")
    _exit(["report", "--out", str(target), "--no-smoke"])
    assert "is a file, not a folder" in capsys.readouterr().err


def test_out_below_a_file_cannot_be_created(tmp_path, capsys):
    blocker = tmp_path / "blocker"
    blocker.write_text("")
    assert _exit(["report", "--out", str(blocker / "inside"), "--no-smoke"]) == 2
    assert "cannot create the folder" in capsys.readouterr().err


def test_unknown_gpu_exits_2_naming_the_known_ones(tmp_path, capsys):
    assert _exit(["report", "--out", str(tmp_path), "--gpu", "gtx480"]) == 2
    assert "h200" in capsys.readouterr().err


def test_unknown_option_exits_2():
    assert _exit(["report", "--colour"]) == 2


def test_failed_smoke_run_gives_exit_code_1(tmp_path, monkeypatch):
    monkeypatch.setattr("flashio.report.builder.build_report",
                        lambda options, log: ReportResult(files=[], smoke_ok=False))
    assert main(["report", "--out", str(tmp_path)]) == 1


def test_options_reach_the_builder(tmp_path, monkeypatch):
    seen = {}

    def fake_build(options, log):
        seen["options"] = options
        return ReportResult(files=[], smoke_ok=None)

    monkeypatch.setattr("flashio.report.builder.build_report", fake_build)
    assert main(["report", "--out", str(tmp_path), "--no-smoke", "--gpu", "H200"]) == 0
    assert (seen["options"].smoke, seen["options"].bench, seen["options"].gpu) == (False, True, "h200")


def test_register_adds_only_report():
    import argparse

    parser = argparse.ArgumentParser()
    report_cli.register(parser.add_subparsers(dest="command"))
    assert parser.parse_args(["report"]).command == "report"
