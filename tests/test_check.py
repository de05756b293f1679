"""`newsroom check`: silent and zero on clean content; every problem named with its place."""

from __future__ import annotations

import pytest


def test_the_sample_publication_is_clean(sample_cli):
    result = sample_cli("check")
    assert result.stdout == "" and result.stderr == ""


ENTRY = """\
kind: entry
slug: {slug}
category: infrastructure
level: basic
trend: mainstream
status: 2026-11
sources: [{{publisher: X, title: Y, url: "https://example.org/"}}]
relations: {relations}
hu:
  headword: {slug} hu
  definition: "{hu_definition}"
en:
  headword: {slug} en
  definition: "{en_definition}"
"""


def _entry(slug="x-entry", relations="{}", hu_definition="Magyar.", en_definition="English."):
    return ENTRY.format(slug=slug, relations=relations, hu_definition=hu_definition, en_definition=en_definition)


@pytest.mark.parametrize("files, expected", [
    ({"e.yaml": _entry(en_definition="")},
     "entry:x-entry: en.definition: missing translation (present in hu)"),
    ({"e.yaml": _entry(hu_definition="Lásd [ezt](entry:nowhere).")},
     "entry:x-entry: hu.definition: link to a missing entry 'nowhere'"),
    ({"e.yaml": _entry(en_definition="As shown [3].")},
     "entry:x-entry: en.definition: citation [3] has no source (1 source listed)"),
    ({"e.yaml": _entry(relations="{related: [x-entry]}")},
     "entry:x-entry: relations.related[0]: an entry cannot be related to itself"),
    ({"a.yaml": _entry("a-entry", "{broader: [b-entry]}"), "b.yaml": _entry("b-entry", "{broader: [a-entry]}")},
     "entry:a-entry: relations.broader: broader/narrower cycle: a-entry → b-entry → a-entry"),
    ({"a.yaml": _entry("a-entry", "{similar: [{entry: trainium, note: {en: Different.}}]}")},
     "entry:a-entry: relations.similar[0].note.hu: a confusable needs a note saying how it differs"),
])
def test_check_reports_each_problem_and_exits_1(sample_cli, write_files, files, expected):
    sample_cli("import", str(write_files({f"entries/{k}": v for k, v in files.items()})))
    result = sample_cli("check", expect=1)
    assert expected in result.stderr.splitlines(), result.stderr


def test_warnings_alone_exit_zero_unless_strict(sample_cli, write_files):
    sample_cli("import", str(write_files({"entries/old.yaml": _entry("old-entry").replace("2026-11", "2020-01")})))
    result = sample_cli("check", expect=None)
    assert "entry:old-entry: status: warning: 'Where things stand' is" in result.stderr
    assert result.exit_code == 0
    assert sample_cli("check", "--strict", expect=None).exit_code == 1
