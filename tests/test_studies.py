"""The error-rate studies' one driver and one report template (grader/studies/error_rates/): each
statistics page is its template filled from the result stored beside it, every study
answers with its options, and a study run end to end prints its table."""
import json

import pytest

from grader.studies.error_rates import report
from grader.studies.error_rates.__main__ import STUDIES, main
from tests.conftest import ROOT

PAGES = {"generate": "statistics_generate", "ngram": "statistics_ngram", "statement": "statistics_power",
         "trees": "statistics_trees", "batched": "statistics_batched"}


@pytest.mark.parametrize("study, page", PAGES.items())
def test_each_page_is_its_template_filled_from_its_stored_result(study, page):
    result = json.loads(report.stored(page).read_text())
    assert report.render(study, result) == (ROOT / "docs" / f"{page}.md").read_text()


def test_a_table_field_fills_one_line_per_row():
    assert report.rows([["`a`", 1, "0.50"], ["`b`", 2, "1.00"]]) == "| `a` | 1 | 0.50 |\n| `b` | 2 | 1.00 |"


def test_every_study_has_a_page_or_prints_one():
    assert {s for s in STUDIES if s not in PAGES} == {"verifiers"}


@pytest.mark.parametrize("study, flags", [
    ("verifiers", ("--seeds", "--workers", "--only")),
    ("generate", ("--seeds", "--reference-seeds", "--jobs", "--calibration")),
    ("ngram", ("--seeds", "--reference-seeds", "--jobs")),
    ("statement", ()),
    ("trees", ("--seeds", "--reference-seeds", "--jobs", "--calibration")),
    ("batched", ("--seeds", "--reference-seeds", "--jobs", "--timing-runs")),
])
def test_each_study_answers_help_with_its_options(study, flags, capsys):
    with pytest.raises(SystemExit) as exit_:
        main([study, "--help"])
    shown = capsys.readouterr().out
    assert exit_.value.code == 0 and all(flag in shown for flag in flags), shown


def test_a_study_runs_end_to_end_and_prints_its_table(capsys):
    main(["verifiers", "--seeds", "2", "--workers", "1", "--only", "max_fn_no_clamp"])
    out = capsys.readouterr().out
    assert "| `max_fn_no_clamp`: " in out and "| max_fn | 2/2 | 1.00 |" in out
    assert out.rstrip().endswith("lowest detection rate: 1.00 over 1 mutants, seeds 0..1")
