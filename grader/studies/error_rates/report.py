"""One report template for every error-rate study: its page is a Markdown template
(``pages/NAME.md``) whose ``str.format`` fields name what the study's result holds, a
JSON dict stored beside the page (``docs/data/``), so that a page's text can be revised
and written again without running the study again. A field holding a list of rows fills
a Markdown table, one ``| a | b |`` line per row."""
import json
from pathlib import Path

from grader.studies.error_rates.runs import ROOT

TEMPLATES = Path(__file__).parent / "pages"


def render(study: str, result: dict) -> str:
    """The page of ``study`` written from its ``result``."""
    fields = {key: rows(value) if isinstance(value, list) and all(isinstance(v, list) for v in value) else value
              for key, value in result.items()}
    return (TEMPLATES / f"{study}.md").read_text().format_map(fields)


def rows(table: list[list]) -> str:
    return "\n".join("| " + " | ".join(str(cell) for cell in row) + " |" for row in table)


def stored(page: str) -> Path:
    """Where the result of the study that writes ``docs/<page>.md`` is kept."""
    return ROOT / "docs" / "data" / f"{page}.json"


def write(study: str, page: str | None, result: dict) -> None:
    """Store ``result`` and write the page from it; a study without a page prints it."""
    text = render(study, result)
    if page is None:
        print(text, end="")
        return
    stored(page).write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n")
    (ROOT / "docs" / f"{page}.md").write_text(text)
    print(f"table in docs/{page}.md, its result in {stored(page).relative_to(ROOT)}")
