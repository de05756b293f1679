"""Email-ready issues: a complete .eml, HTML made for mail clients, a plain-text part for reading."""

from __future__ import annotations

import email
import email.policy
import re
from pathlib import Path

import html5lib
import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from conftest import Cli
from sitebuild import BASE, ISSUE_14_STORY
from sitebuild import DRAFT_ISSUE as DRAFT

from newsroom.render import email_images
from newsroom.render.markdown.plaintext import closes_a_word

UNTRANSLATED = """\
kind: issue
number: 15
week: {start: 2026-11-16, end: 2026-11-22}
status: published
published_at: 2026-11-23T07:00:00+01:00
hu: {title: Csak magyarul}
"""


@pytest.fixture(scope="module")
def sample(tmp_path_factory: pytest.TempPathFactory) -> Cli:
    """One sample database for the read-only tests (rendering does not depend on the backend)."""
    return _sample_in(tmp_path_factory.mktemp("email"))


def _sample_in(folder: Path) -> Cli:
    """The CLI on a new SQLite database in `folder` holding the sample publication."""
    cli = Cli(f"sqlite:///{folder / 'sample.db'}", folder)
    cli("init", "--sample")
    return cli


@pytest.fixture(scope="module")
def emails(sample: Cli) -> Path:
    out = sample.cwd / "mail"
    for lang in ("hu", "en"):
        result = sample("email", "13", "--lang", lang, "--out", str(out), "--base-url", BASE)
        assert f"{lang}/issue-13.eml" in result.stdout
    return out


def _message(path: Path) -> email.message.EmailMessage:
    return email.message_from_bytes(path.read_bytes(), policy=email.policy.default)


def _html(path: Path):
    return html5lib.HTMLParser(strict=True, namespaceHTMLElements=False).parse(path.read_bytes())


def test_the_eml_is_multipart_alternative_with_list_headers_and_encoded_hungarian(emails):
    raw = (emails / "hu/issue-13.eml").read_bytes()
    headers = raw.split(b"\r\n\r\n", 1)[0]
    assert headers.isascii(), "non-ASCII header bytes: RFC 2047 encoding missing"
    message = _message(emails / "hu/issue-13.eml")
    assert message.get_content_type() == "multipart/alternative"
    parts = [part.get_content_type() for part in message.iter_parts()]
    assert parts == ["text/plain", "text/html"]  # the richest last, as RFC 2046 asks
    assert all(part.get_content_charset() == "utf-8" for part in message.iter_parts())
    assert message["Subject"] == "13. szám: Trainium, TPU, GPU – a saját chipek hete"
    assert message["From"].addresses[0].display_name == "Az MI-korszak hírei"
    assert message["From"].addresses[0].addr_spec == "hirlevel@example.org"
    assert message["Reply-To"] == "szerkesztoseg@example.org"
    assert message["Date"].datetime.isoformat() == "2026-11-09T06:00:00+00:00"
    assert message["Message-ID"] == "<issue-13.hu@weekly.example.org>"
    assert message["List-Id"] == "Az MI-korszak hírei <weekly.example.org>"
    unsubscribe = [u.strip(" <>") for u in str(message["List-Unsubscribe"]).split(",")]
    assert unsubscribe == [f"{BASE}unsubscribe",
                           "mailto:unsubscribe@example.org?subject=unsubscribe"]
    assert message["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    html = message.get_body(("html",)).get_content()
    assert html.replace("\r\n", "\n").strip() == (emails / "hu/issue-13.html").read_text(encoding="utf-8").strip()
    text = message.get_body(("plain",)).get_content()
    assert text.replace("\r\n", "\n") == (emails / "hu/issue-13.txt").read_text(encoding="utf-8")


def test_out_of_office_replies_to_an_issue_are_suppressed(emails):
    """Exchange and Outlook send an out-of-office reply to a list's message unless it says not to (they ignore
    List-Id): each issue filled the reply address with hundreds of them."""
    for lang in ("hu", "en"):
        message = _message(emails / f"{lang}/issue-13.eml")
        assert message["X-Auto-Response-Suppress"] == "OOF, AutoReply"
        assert message["List-Id"]  # what other auto-responders heed (RFC 3834)


def test_the_sender_is_named_in_each_email_s_language_unless_the_settings_name_it(sample, emails, tmp_path):
    """The Subject names the newsletter only when the From does not: a phone shows the sender's name above the
    Subject, and "Az MI-korszak hírei · " took a third of the Subject's line there."""
    english = _message(emails / "en/issue-13.eml")
    assert english["From"].addresses[0].display_name == "News of the AI era"
    assert english["From"].addresses[0].addr_spec == "hirlevel@example.org"
    assert english["Subject"] == "Issue 13: Trainium, TPU, GPU – a week of custom chips"
    named = Cli(sample.db_url, tmp_path)
    subjects = {"hu": "Az MI-korszak hírei · 13. szám: Trainium, TPU, GPU – a saját chipek hete",
                "en": "News of the AI era · Issue 13: Trainium, TPU, GPU – a week of custom chips"}
    for sender_name in ("Szerkesztőség", "News of the AI era"):
        toml = f'email_from = "{sender_name} <desk@example.org>"\n'
        (tmp_path / "newsroom.toml").write_text(toml, encoding="utf-8")
        for lang in ("hu", "en"):
            named("email", "13", "--lang", lang, "--out", str(tmp_path / "mail"), "--base-url", BASE)
            raw = (tmp_path / "mail" / lang / "issue-13.eml").read_bytes()
            assert raw.split(b"\r\n\r\n", 1)[0].isascii()
            message = _message(tmp_path / "mail" / lang / "issue-13.eml")
            sender = message["From"].addresses[0]
            assert (sender.display_name, sender.addr_spec) == (sender_name, "desk@example.org")
            # Another sender's name: the Subject says whose newsletter it is; the newsletter's own (in English,
            # which the Hungarian email's From then does not show) only where it is the From's.
            shown = sender_name == ("News of the AI era" if lang == "en" else "Az MI-korszak hírei")
            assert message["Subject"] == (subjects[lang].split(" · ", 1)[1] if shown else subjects[lang])


def test_the_same_issue_gives_the_same_bytes(sample, emails):
    again = sample.cwd / "again"
    sample("email", "13", "--lang", "hu", "--out", str(again), "--base-url", BASE)
    for suffix in ("html", "txt", "eml"):
        assert (again / f"hu/issue-13.{suffix}").read_bytes() == (emails / f"hu/issue-13.{suffix}").read_bytes()


def test_the_html_is_made_for_mail_clients(emails):
    for lang, view in (("hu", "Megnyitás böngészőben"), ("en", "View in browser")):
        path = emails / f"{lang}/issue-13.html"
        assert path.stat().st_size < 90 * 1024  # Gmail clips an HTML part over 102 KB as sent (encoded)
        document = _html(path)
        assert document.get("lang") == lang
        assert not list(document.iter("script"))
        assert not [link for link in document.iter("link") if link.get("rel") == "stylesheet"]
        # The look is in style attributes; a <style> may only add the dark-mode media query, and reset the links
        # iOS Mail makes of dates and numbers.
        for style in document.iter("style"):
            rules = re.sub(r"@media \(prefers-color-scheme: dark\)\s*\{(?:[^{}]*\{[^{}]*\})*[^{}]*\}", "",
                           style.text or "")
            rules = re.sub(r"a\[x-apple-data-detectors\] \{[^{}]*\}", "", rules)
            assert rules.strip() == "", f"{lang}: CSS outside the dark-mode query: {rules.strip()[:80]}"
        for tag in ("table", "td", "h1", "h2", "h3", "a", "p"):
            elements = list(document.iter(tag))
            assert elements and all(e.get("style") for e in elements), f"{lang}: <{tag}> without inline style"
        frame = [t for t in document.iter("table") if t.get("width") == "600"]
        assert frame and "width: 600px" in frame[0].get("style")
        metas = {m.get("name"): m.get("content") for m in document.iter("meta") if m.get("name")}
        assert metas["color-scheme"] == "light dark"
        preheader = next(div for div in document.iter("div") if "display: none" in (div.get("style") or ""))
        assert (preheader.text or "").strip()
        links = {a.text: a.get("href") for a in document.iter("a")}
        assert links[view] == f"{BASE}{lang}/issues/13/"
        assert all(href.startswith(("https://", "http://", "mailto:")) for href in links.values())
        for image in document.iter("img"):
            assert image.get("width") and image.get("height") and image.get("alt") is not None
        body_text = "".join(document.find("body").itertext())
        assert ("Leiratkozás" if lang == "hu" else "Unsubscribe") in body_text


def test_the_footer_links_the_method_page_and_says_nothing_of_how_the_publication_is_made(emails):
    """Every publication's emails said it was "compiled with machine editing and reviewed by a machine expert",
    the sample's own practice, whoever wrote it: how a newsletter is made is its Method page's to say."""
    for lang, line, method in (("hu", "Hogyan készül ez a hírlevél: Módszer", "Módszer"),
                               ("en", "How this newsletter is made: Method", "Method")):
        message = _message(emails / f"{lang}/issue-13.eml")
        document = html5lib.HTMLParser(strict=True, namespaceHTMLElements=False).parse(
            message.get_body(("html",)).get_content())
        footer = next(td for td in document.iter("td") if td.get("class") == "footer")
        paragraphs = [" ".join("".join(p.itertext()).split()) for p in footer.iter("p")]
        assert paragraphs[0] == line, paragraphs
        links = {a.text: a.get("href") for a in footer.iter("a")}
        assert links[method] == f"{BASE}{lang}/method/"
        text = message.get_body(("plain",)).get_content().replace("\r\n", "\n")
        body, _, listed = text.partition("\n--\n")
        number = re.search(rf"^{line.removesuffix(method)}\[(\d+)\]$", listed, re.M)
        assert number, listed[:400]
        assert re.search(rf"^\[{number[1]}\] {re.escape(BASE)}{lang}/method/$", listed, re.M)
        for words in ("machine", "gépi"):
            assert words not in "".join(footer.itertext()) + listed.partition("\n\n")[0]


def test_dates_numbers_and_addresses_are_not_made_links_by_the_mail_client(emails):
    """iOS Mail and Apple Mail made the week's dates, times, numbers and addresses into blue links (to the
    calendar, a phone call, a map). The head asks them not to; what they still link reads as the text around it."""
    for lang in ("hu", "en"):
        document = _html(emails / f"{lang}/issue-13.html")
        head = document.find("head")
        metas = {m.get("name"): m.get("content") for m in head.iter("meta") if m.get("name")}
        assert metas["format-detection"] == "telephone=no, date=no, address=no, email=no"
        reset = [style.text for style in head.iter("style") if "x-apple-data-detectors" in (style.text or "")]
        assert len(reset) == 1, reset
        rule = re.search(r"a\[x-apple-data-detectors\] \{([^{}]*)\}", reset[0])
        assert rule, reset[0]
        declarations = dict(re.findall(r"([a-z-]+): ([^;]+?) !important;", rule[1]))
        assert declarations == {"color": "inherit", "text-decoration": "none", "font-size": "inherit",
                                "font-family": "inherit", "font-weight": "inherit", "line-height": "inherit"}


def test_the_language_is_said_inside_the_body_which_webmail_keeps(emails):
    """Gmail and other webmail show the body without <html>, and its lang with it: a screen reader would read
    the Hungarian issue with an English voice. Everything shown sits in an element that says the language."""
    for lang in ("hu", "en"):
        document = _html(emails / f"{lang}/issue-13.html")
        assert (document.get("lang"), document.get("dir")) == (lang, "ltr")
        shown = [child for child in document.find("body") if isinstance(child.tag, str)]
        assert [(e.tag, e.get("lang"), e.get("dir")) for e in shown] == [("div", lang, "ltr")]


def test_a_source_in_another_language_than_the_email_s_says_its_language(emails):
    """As on the issue's page: the Hungarian email's English sources are marked English, the English one's not."""
    for lang, marked in (("hu", {"en"}), ("en", {None})):
        body = _message(emails / f"{lang}/issue-13.eml").get_body(("html",)).get_content()
        document = html5lib.parse(body, namespaceHTMLElements=False)
        links = [a for p in document.iter("p") if p.get("class") == "sources" for a in p.iter("a")]
        assert len(links) > 10 and {a.get("lang") for a in links} == marked


def _style(element) -> dict[str, str]:
    """An element's inline style as {property: value}."""
    return dict(tuple(part.strip() for part in rule.split(":", 1)) for rule in (element.get("style") or "").split(";")
                if ":" in rule)


def test_the_column_narrows_to_a_phone_s_width_and_stays_600_px_in_outlook(emails):
    """A phone is narrower than 600 px: a column fixed at 600 px is shrunk to tiny text or scrolled sideways
    there. It is fluid up to 600 px; Outlook for Windows, which ignores max-width, gets a 600 px table around it."""
    for lang in ("hu", "en"):
        html = (emails / f"{lang}/issue-13.html").read_text(encoding="utf-8")
        frame = next(t for t in _html(emails / f"{lang}/issue-13.html").iter("table") if t.get("class") == "frame")
        assert (_style(frame)["width"], _style(frame)["max-width"]) == ("100%", "600px")
        outlook = re.search(r"<!--\[if mso\]><table\b[^>]*\bwidth=\"600\"[^>]*><tr><td><!\[endif\]-->\s*"
                            r"<table class=\"frame\".*<!--\[if mso\]></td></tr></table><!\[endif\]-->", html, re.S)
        assert outlook, f"{lang}: no 600 px table around the column for Outlook"


def test_the_text_part_is_for_reading_with_numbered_links(emails):
    text = (emails / "en/issue-13.txt").read_text(encoding="utf-8")
    assert "<" not in text.replace("<https", "")
    assert "Trainium, TPU, GPU – a week of custom chips" in text
    assert "Dear Reader," in text
    body, _, links = text.partition("\nLinks:\n")
    references = dict(re.findall(r"^\[(\d+)\] (\S+)$", links, re.M))
    assert references["1"] == f"{BASE}en/method/"  # numbered in reading order: the editor's note links it first
    assert any(url.startswith(f"{BASE}en/issues/13/#story-") for url in references.values())
    cited = set(re.findall(r"\[(\d+)\]", body))
    assert cited == set(references), "every reference is cited and every citation listed"
    assert f"{BASE}en/issues/13/" in references.values()
    assert max(len(line) for line in body.splitlines()) <= 100


def test_the_text_part_gives_the_web_version_s_address_at_its_top(emails):
    """A reader whose client shows the text part saw where to read the issue on the web only at its end, as a
    number to look up under the links; the HTML part has it at the top."""
    for lang, site, label, view in (("hu", "AZ MI-KORSZAK HÍREI", "13. szám · 2026. nov. 2–8.", "Megnyitás böngészőben"),
                                    ("en", "NEWS OF THE AI ERA", "Issue 13 · Nov 2–8, 2026", "View in browser")):
        text = _message(emails / f"{lang}/issue-13.eml").get_body(("plain",)).get_content().replace("\r\n", "\n")
        assert text.splitlines()[:4] == [site, label, f"{view}: {BASE}{lang}/issues/13/", ""], text[:300]
        assert re.search(rf"^{view}: \[\d+\]$", text, re.M), "and at its end, as before"


def test_build_writes_the_latest_issues_email_beside_the_site(sample):
    sample("build", "--out", str(sample.cwd / "_site"), "--base-url", BASE)
    for lang in ("hu", "en"):
        for suffix in ("html", "txt", "eml"):
            assert (sample.cwd / "_email" / lang / f"issue-13.{suffix}").is_file()
    assert not list((sample.cwd / "_site").rglob("*.eml"))


def test_an_unpublished_issue_is_refused_unless_draft(sample_cli, write_files):
    sample_cli("import", str(write_files({"issues/0014.yaml": DRAFT})))
    out = sample_cli.cwd / "mail"
    result = sample_cli("email", "14", "--lang", "hu", "--out", str(out), expect=1)
    assert "issue:14: status: the issue is draft, not published" in result.stderr
    assert not out.exists()
    sample_cli("email", "14", "--lang", "en", "--out", str(out), "--draft")
    message = _message(out / "en/issue-14.eml")
    assert message["Subject"].startswith("[Draft] ")
    # Not the issue's own Message-ID: mailed to an editor, it would make the real issue a duplicate to drop.
    preview = message["Message-ID"]
    assert re.fullmatch(r"<issue-14\.en\.preview-[0-9a-f]{16}@weekly\.example\.org>", preview), preview
    sample_cli("email", "14", "--lang", "en", "--out", str(out), "--draft")
    assert _message(out / "en/issue-14.eml")["Message-ID"] == preview  # the same preview, the same message


@pytest.mark.sqlite_only("what an email shows does not depend on the database")
def test_an_issue_without_a_lead_has_its_headlines_as_the_inbox_preview_and_no_gap(sample_cli, write_files):
    """With no lead the preheader was empty, and inboxes showed "View in browser" under the Subject (as they
    did after a short one); the text part had four empty lines where the lead would be."""
    sample_cli("import", str(write_files({"issues/0014.yaml": DRAFT, "stories/i14.yaml": ISSUE_14_STORY})))
    out = sample_cli.cwd / "mail"
    sample_cli("email", "14", "--lang", "en", "--out", str(out), "--draft")
    document = _html_part(out / "en/issue-14.eml")
    preheader = next(div for div in document.iter("div") if div.get("class") == "preheader")
    assert preheader.text == "Scheduled story"
    # Nor is it followed in the inbox by "View in browser": invisible characters fill the preview after it.
    html = re.sub(r"<!--.*?-->", "", _message(out / "en/issue-14.eml").get_body(("html",)).get_content(), flags=re.S)
    body = html5lib.parse(html, namespaceHTMLElements=False).find("body")
    shown = " ".join("".join(body.itertext()).split())  # the text an inbox takes its preview from
    assert shown.startswith("Scheduled story") and shown.index("View in browser") >= 150, shown[:200]
    text = _message(out / "en/issue-14.eml").get_body(("plain",)).get_content().replace("\r\n", "\n")
    assert "Dear Reader,\n\n\nCODE\n----\n\nScheduled story [1]\nOut on Monday.\n" in text, text


def test_a_missing_translation_or_issue_is_refused(sample_cli, write_files):
    # Stored as it is (an import refuses it: the builds would stop on it), as a backup may restore it.
    sample_cli("import", "--no-check", str(write_files({"issues/0015.yaml": UNTRANSLATED})))
    result = sample_cli("email", "15", "--lang", "en", expect=1)
    assert "issue:15: en: missing translation" in result.stderr
    sample_cli("email", "15", "--lang", "hu", "--out", str(sample_cli.cwd / "ok"))
    result = sample_cli("email", "99", "--lang", "hu", expect=1)
    assert "issue:99: number: no such issue" in result.stderr


def test_a_language_the_site_does_not_publish_in_is_named_as_such(sample_cli):
    """Not one "missing translation" per story of the issue: the language is the mistake."""
    subscribers = sample_cli.cwd / "subscribers.csv"
    subscribers.write_text("email,lang\nreader@example.org,hu\n", encoding="utf-8")
    for command in (["email", "13", "--lang", "de"],
                    ["send", "13", "--lang", "de", "--to", str(subscribers), "--smtp", "127.0.0.1:9"]):
        result = sample_cli(*command, expect=2)
        assert "Invalid value for --lang: 'de': the site publishes in hu, en" in result.stderr, result.stderr
        assert "missing translation" not in result.stderr
    assert not (sample_cli.cwd / "_email").exists()


def test_a_latest_issue_too_long_for_an_email_is_a_warning_of_the_build_not_a_silent_gap(sample_cli, tmp_path):
    """Gmail clips a message over 102 KB: the build makes no such email (as `newsroom email` refuses it),
    and says so instead of leaving the email folder without it unsaid."""
    import yaml

    from newsroom import SAMPLE_DIR

    story = yaml.safe_load((SAMPLE_DIR / "stories" / "i13-vllm-trainium-backend.yaml").read_text(encoding="utf-8"))
    story.update(slug="i13-a-very-long-story", position=99)
    paragraph = "A long paragraph about the week's chips and their costs, written out at length. " * 12
    story["en"]["summary"] = "\n\n".join([paragraph] * 120)  # the email shows each summary whole
    folder = tmp_path / "long"
    (folder / "stories").mkdir(parents=True)
    (folder / "stories" / "long.yaml").write_text(yaml.safe_dump(story, allow_unicode=True), encoding="utf-8")
    sample_cli("import", "--correction", "--reason", "corrected", str(folder))
    mail = tmp_path / "mail"
    result = sample_cli("build", "--out", str(tmp_path / "site"), "--email-out", str(mail))
    assert "issue:13: en: warning: its email is not made: the email's HTML is " in result.stderr, result.stderr
    assert "Gmail clips a message whose HTML is over 102 KB" in result.stderr
    assert sorted(p.relative_to(mail).as_posix() for p in mail.rglob("*.eml")) == ["hu/issue-13.eml"]


@pytest.mark.sqlite_only("an email's size does not depend on the database")
def test_the_size_gmail_clips_at_is_the_html_part_s_as_sent_not_decoded(sample_cli, tmp_path):
    """Gmail counts the HTML part as it arrives, quoted-printable encoded: an accented letter's two bytes take
    six there, and each `=` of the inlined styles three. A Hungarian issue measured decoded, some 84 KB, was
    made and sent, and Gmail clipped its end, the unsubscribe link with it: sent, it is over 110 KB."""
    import yaml

    from newsroom import SAMPLE_DIR

    story = yaml.safe_load((SAMPLE_DIR / "stories" / "i13-vllm-trainium-backend.yaml").read_text(encoding="utf-8"))
    story.update(slug="i13-a-long-hungarian-story", position=99)
    paragraph = ("A kutatók megmérték, mennyi energia megy el egy-egy tokenre a különböző chipeken; a különbség "
                 "elérte a két-háromszorost. ") * 8
    story["hu"]["summary"] = "\n\n".join([paragraph] * 50)
    folder = tmp_path / "long"
    (folder / "stories").mkdir(parents=True)
    (folder / "stories" / "long.yaml").write_text(yaml.safe_dump(story, allow_unicode=True), encoding="utf-8")
    sample_cli("import", "--correction", "--reason", "corrected", str(folder))
    mail = tmp_path / "mail"
    result = sample_cli("email", "13", "--lang", "hu", "--out", str(mail), expect=1)
    found = re.fullmatch(r"issue:13: hu: the email's HTML is (\d+\.\d) KB as sent \(quoted-printable encoded; "
                         r"(\d+\.\d) KB decoded\), and Gmail clips a message whose HTML is over 102 KB: shorten the "
                         r"lead, the editor's note or the stories' summaries", result.stderr.splitlines()[0])
    assert found, result.stderr
    assert float(found[2]) < 102 < float(found[1]), found.groups()
    assert not mail.exists()
    # The English issue, its summaries short, is made; what it measures is its HTML part in the `.eml`.
    sample_cli("email", "13", "--lang", "en", "--out", str(mail))
    html = next(part for part in _message(mail / "en/issue-13.eml").walk() if part.get_content_type() == "text/html")
    assert html["Content-Transfer-Encoding"] == "quoted-printable"


@pytest.mark.sqlite_only
def test_the_list_id_names_the_list_by_a_phrase_whatever_the_site_s_name_holds(sample_cli, tmp_path):
    """RFC 2919: `List-Id: phrase <list-id>`. A name with a comma, quotes or angle brackets was written as it
    was, so a parser took `x@evil.example` in it for the list's id; a plain name stays plain."""
    sample_cli("export", str(tmp_path / "out"))
    site = tmp_path / "out" / "site.yaml"
    site.write_text(site.read_text(encoding="utf-8").replace("name: Az MI-korszak hírei", "name: 'Hírek, \"MI\" <x@y>'")
                    .replace("name: News of the AI era", "name: 'News, \"AI\" <x@evil.example> (weekly)'"),
                    encoding="utf-8")
    sample_cli("import", str(site), "--correction", "--reason", "name")
    for lang, phrase in (("hu", "Hírek MI x y"), ("en", 'News, "AI" <x@evil.example> (weekly)')):
        sample_cli("email", "13", "--lang", lang, "--out", str(tmp_path / "mail"), "--base-url", BASE)
        raw = (tmp_path / "mail" / lang / "issue-13.eml").read_bytes()
        assert raw.split(b"\r\n\r\n", 1)[0].isascii()
        value = str(_message(tmp_path / "mail" / lang / "issue-13.eml")["List-Id"])
        # A phrase (quoted, or words without specials), then the one angle-bracketed id.
        found = re.fullmatch(r'("(?:[^"\\]|\\.)*"|[^"()<>\[\]:;@\\,.]*) <([^<>]*)>', value)
        assert found is not None, value
        shown = found[1][1:-1].replace('\\"', '"') if found[1].startswith('"') else found[1]
        assert (shown, found[2]) == (phrase, "weekly.example.org"), value


@pytest.mark.sqlite_only("what an email shows does not depend on the database")
def test_the_greeting_is_the_site_s_own_per_language_escaped_and_remade_when_it_changes(sample_cli, tmp_path):
    """The engine opened every email with "Dear Reader,": an editorial voice an editor could change only by
    copying the templates. It is the site file's `greeting:`, shown as text; without one there is no line."""
    sample_cli("export", str(tmp_path / "out"))
    site = tmp_path / "out" / "site.yaml"
    original = site.read_text(encoding="utf-8")
    assert "greeting: Dear Reader," in original  # the sample's, exported as written
    site.write_text(original.replace("greeting: Kedves Olvasó!", "greeting: '<b>Kedves</b> Olvasó & Barát!'")
                    .replace("  greeting: Dear Reader,\n", ""), encoding="utf-8")
    sample_cli("import", str(site), "--correction", "--reason", "greeting")
    build = ("build", "--out", str(tmp_path / "site"), "--email-out", str(tmp_path / "mail"), "--base-url", BASE)
    sample_cli(*build)

    def parts(lang: str, folder: str = "mail") -> tuple[list[str], str]:
        message = _message(tmp_path / folder / lang / "issue-13.eml")
        body = html5lib.parse(message.get_body(("html",)).get_content(), namespaceHTMLElements=False).find("body")
        paragraphs = ["".join(p.itertext()) for p in body.iter("p")]
        assert body.find(".//b") is None  # content is text, never markup
        return paragraphs, message.get_body(("plain",)).get_content().replace("\r\n", "\n")

    paragraphs, text = parts("hu")
    meta = next(i for i, p in enumerate(paragraphs) if p.startswith("13. szám"))
    assert paragraphs[meta + 1] == "<b>Kedves</b> Olvasó & Barát!"
    assert "\n\n<b>Kedves</b> Olvasó & Barát!\n\n" in text
    paragraphs, text = parts("en")
    assert not any("Dear Reader" in p for p in paragraphs) and "Dear Reader" not in text
    meta = next(i for i, p in enumerate(paragraphs) if p.startswith("Issue 13"))
    assert paragraphs[meta + 1].startswith("This week Amazon"), paragraphs[meta + 1]  # the lead comes next
    # Edited, the greeting is in the next build's email, as a full build makes it.
    site.write_text(site.read_text(encoding="utf-8").replace("'<b>Kedves</b> Olvasó & Barát!'", "Szia!"),
                    encoding="utf-8")
    sample_cli("import", str(site), "--force", "--correction", "--reason", "greeting")
    sample_cli(*build)
    assert "\n\nSzia!\n\n" in parts("hu")[1]
    sample_cli("build", "--out", str(tmp_path / "fresh"), "--email-out", str(tmp_path / "fresh-mail"),
               "--base-url", BASE, "--full")
    for lang in ("hu", "en"):
        for suffix in ("html", "txt", "eml"):
            name = f"{lang}/issue-13.{suffix}"
            assert (tmp_path / "mail" / name).read_bytes() == (tmp_path / "fresh-mail" / name).read_bytes(), name


# -- An issue whose texts use the Markdown an email must carry over: links, citations, paragraphs, lists.

STORY_KEY = "i13-energy-per-token-chip-comparison"
LONG_HEADLINE = ("How much power does an AI answer use? It depends on the chip, the software settings, the batch size "
                 "and the cooling of the data center it runs in")
LONG_WORD = "Energia" + "hatékonyság" * 20  # 227 characters, no space to break at
SUMMARY_EN = """\
Researchers measured the energy each generated token took [1] on three kinds of chips; the
[Trainium](entry:trainium) page explains Amazon's, and [the measuring code](https://example.org/joules)
is public.

What they found:

- the differences between chips reached two to three times, depending on the model and on the batch
  size the operator chose [2]
- software settings mattered at least as much
"""
SUMMARY_HU = """\
A kutatók megmérték, mennyi energia megy el egy-egy tokenre [1]; a [Trainium](entry:trainium) oldalán
az Amazon chipjeiről is olvashatsz.

Az eredmények:

- a chipek közötti különbség elérte a két-háromszorost [2]
- a szoftveres beállítások legalább ennyit számítottak
"""
NOTE_LIST = "\n\nIn this issue:\n\n- the chips of three companies\n- a guide to labelling machine-written text\n"
#: Links that read as their own address: the text part shows each where it stands, and lists none of them again.
NOTE_ADDRESSES = ("\nWrite to <desk@example.org>, or read the data at <https://example.org/data> and the code at "
                  "[https://example.org/code](https://example.org/code), or [data.example.net/energy]"
                  "(https://data.example.net/energy).\n")
#: Images, which an email does not show: one alone, one that is a link's text, one without alt text (decoration).
NOTE_IMAGES = ("\nThe chart: ![Energy per token, by chip](https://example.org/chart.png), and the "
               "[![report's cover](https://example.org/cover.png)](https://example.org/report) "
               "![](https://example.org/ornament.png).\n"
               "\nTwo ![](https://example.org/dot.png). Then ![](https://example.org/dot.png) three.\n")
#: An image whose alt text is written with Markdown and raw HTML, and a formula with HTML in its layout.
NOTE_ALT = ("\nThe figure ![*Energy* per `token` \\* &amp; <b>more</b>](https://example.org/figure.png) and "
            "<math><mi>x</mi><mo>+</mo><b>y</b></math> with <mi>z</mi>.\n")
#: A quote: the text part marks it, or it reads as the editor's own words.
NOTE_QUOTE = ("\nAs the study's authors put it:\n\n> Software settings mattered at least as much as the chip "
              "itself, and no vendor's numbers can be compared without them.\n>\n> We publish every setting.\n")
#: A code block whose one line is far wider than the email.
NOTE_CODE = ("\nTo try it:\n\n```\nNEURON_RT_VISIBLE_CORES=0-31,NEURON_CC_FLAGS=--model-type=transformer,"
             "--auto-cast=matmult,--enable-fast-loading\n```\n")

#: Decoration alone in a paragraph, and as a link's only content: nothing of either is shown.
NOTE_DECORATION = ("\n![](https://example.org/divider.png)\n\n[![](https://example.org/badge.png)]"
                   "(https://example.org/sponsor)\n\nThat is all this week.\n")

#: A link of a scheme the pages show as its Markdown, brackets and all.
NOTE_REFUSED = "\nDo not follow [this one](javascript:alert(1)) or [that one](data:text/html,x).\n"
#: Embeds, which no email shows: a video with a title in a sentence, a chart without one on its own line.
NOTE_EMBEDS = ("\nWatch <iframe src=\"https://www.youtube.com/embed/abc?start=5&amp;rel=0\" "
               "title=\"the talk, <b>live</b>\" width=\"560\">your browser shows no frames</iframe> now.\n"
               "\n<iframe src=\"https://example.org/embed/chart\"></iframe>\n")

#: Raw HTML whose content the email once lost: an <xmp>'s text, an applet's fallback, a formula, a protocol-relative
#: embed.
NOTE_LOST = ("\nType <xmp><b>bold</b> & more</xmp> in an <applet code=\"a.class\">old <i>applet</i></applet>, with "
             "<math alttext=\"x squared\"><msup><mi>x</mi><mn>2</mn></msup></math> and <iframe "
             "src=\"//video.example.org/v\" title=\"the protocol-relative talk\"></iframe>.\n")

#: Links of raw HTML among Markdown ones, in one paragraph: a raw link, an embed, a Markdown link, a raw link again.
NOTE_ORDER = ("\nFirst <a href=\"https://order.example.org/raw\">the raw link</a>, then <iframe "
              "src=\"https://order.example.org/embed\" title=\"the embedded chart\"></iframe>, then [the Markdown "
              "link](https://order.example.org/markdown) and <a href=\"https://order.example.org/last\" title=\"t\">the "
              "<i>last</i> raw one</a>.\n\n<p>A block's <a href=\"https://order.example.org/block\">raw link</a>.</p>\n")


@pytest.fixture(scope="module")
def edited(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample's issue 13 with a story and the editor's note rewritten to use links, citations and lists."""
    import yaml

    from newsroom import SAMPLE_DIR

    folder = tmp_path_factory.mktemp("edited")
    cli = _sample_in(folder)
    story = yaml.safe_load((SAMPLE_DIR / "stories" / f"{STORY_KEY}.yaml").read_text(encoding="utf-8"))
    story["en"].update(headline=LONG_HEADLINE, summary=SUMMARY_EN)
    story["hu"].update(headline=f"Mennyi áramot fogyaszt egy MI-válasz? {LONG_WORD}", summary=SUMMARY_HU)
    story["sources"].append({"publisher": "The International Journal of Energy-Efficient Computing Systems "
                                          "and Data Center Engineering", "title": "Energy per token",
                             "url": "https://journal.example.org/energy-per-token"})
    issue = yaml.safe_load((SAMPLE_DIR / "issues" / "0013.yaml").read_text(encoding="utf-8"))
    issue["en"]["editor_note"] += NOTE_LIST + NOTE_ADDRESSES + NOTE_IMAGES + NOTE_QUOTE + NOTE_REFUSED + NOTE_EMBEDS \
        + NOTE_LOST + NOTE_ORDER + NOTE_ALT + NOTE_CODE + NOTE_DECORATION
    changes = folder / "changes"
    (changes / "stories").mkdir(parents=True)
    (changes / "issues").mkdir()
    (changes / "stories" / f"{STORY_KEY}.yaml").write_text(yaml.safe_dump(story, allow_unicode=True), encoding="utf-8")
    (changes / "issues" / "0013.yaml").write_text(yaml.safe_dump(issue, allow_unicode=True), encoding="utf-8")
    cli("import", "--correction", "--reason", "corrected", str(changes))
    out = folder / "mail"
    for lang in ("hu", "en"):
        cli("email", "13", "--lang", lang, "--out", str(out), "--base-url", BASE)
    return out


def _text_part(path: Path) -> tuple[str, dict[int, str]]:
    """The plain-text part of an `.eml` (before its link list) and its numbered links."""
    text = _message(path).get_body(("plain",)).get_content().replace("\r\n", "\n")
    body, links = re.split(r"^\S[^\n]*:\n(?=\[1\] )", text, maxsplit=1, flags=re.M)  # "Links:" in English
    references = {int(n): url for n, url in re.findall(r"^\[(\d+)\] (\S+)$", links, re.M)}
    return body, references


def _html_part(path: Path):
    html = _message(path).get_body(("html",)).get_content()
    return html5lib.HTMLParser(strict=True, namespaceHTMLElements=False).parse(html)


def _linked(body: str, words: str, references: dict[int, str]) -> str:
    """The URL the text part lists for `words [n]` (the words may be wrapped over lines)."""
    pattern = r"\s+".join(map(re.escape, words.split())) + r" \[(\d+)\]"
    found = re.search(pattern, body)
    assert found, f"no {words!r} [n] in the text part"
    return references[int(found.group(1))]


def _story_parts(document, key: str) -> list:
    """The elements of one story in the email's HTML: its headline and what follows it up to the next."""
    cell = next(td for td in document.iter("td") if td.get("class") == "cell")
    parts: list = []
    for element in cell:
        if element.tag in ("h2", "h3") and parts:
            break
        if parts or (element.tag == "h3" and element.find("a").get("href").endswith(f"#story-{key}")):
            parts.append(element)
    return parts


def test_the_text_part_lists_the_links_of_the_lead_note_and_summaries(edited):
    """What the HTML part links, the text part reads as `text [n]` with the URL under "Links"."""
    body, references = _text_part(edited / "en/issue-13.eml")
    assert _linked(body, "the Method", references) == f"{BASE}en/method/"
    assert _linked(body, "the Trainium", references) == f"{BASE}en/glossary/trainium/"
    assert _linked(body, "Issue 12", references) == f"{BASE}en/issues/12/"
    assert _linked(body, "explains Amazon's, and the measuring code", references) == "https://example.org/joules"
    summary = _story_parts(_html_part(edited / "en/issue-13.eml"), STORY_KEY)
    hrefs = {a.get("href") for element in summary for a in element.iter("a")}
    assert {f"{BASE}en/glossary/trainium/", "https://example.org/joules"} <= hrefs
    urls = list(references.values())
    assert len(urls) == len(set(urls)), "a URL is listed once"
    assert sorted(references) == list(range(1, len(references) + 1))
    cited = {int(n) for n in re.findall(r"\[(\d+)\]", body)}
    assert cited == set(references), "every link cited, every citation listed"
    hungarian, links = _text_part(edited / "hu/issue-13.eml")
    assert _linked(hungarian, "Módszer", links) == f"{BASE}hu/method/"
    assert _linked(hungarian, "12. szám", links) == f"{BASE}hu/issues/12/"
    assert _linked(hungarian, "a Trainium", links) == f"{BASE}hu/glossary/trainium/"


def test_a_link_that_reads_as_its_own_address_is_not_listed_twice_in_the_text_part(edited):
    """`<https://…>`, `[https://…](https://…)` or `[example.org/x](https://example.org/x)` read "https://… [n]"
    with the same URL again under "Links": the address is shown once, where it stands (mail clients make a link
    of it); the HTML links it."""
    body, references = _text_part(edited / "en/issue-13.eml")
    assert ("Write to desk@example.org, or read the data at https://example.org/data and the code at "
            "https://example.org/code, or data.example.net/energy.") in " ".join(body.split())
    addresses = {"mailto:desk@example.org", "https://example.org/data", "https://example.org/code",
                 "https://data.example.net/energy"}
    assert not addresses & set(references.values())
    note = next(div for div in _html_part(edited / "en/issue-13.eml").iter("div") if div.get("class") == "note")
    assert addresses <= {a.get("href") for a in note.iter("a")}


def test_an_image_reads_as_its_alt_text_linked_to_it_in_both_parts(edited):
    """An email shows no image: dropped, the one in a link left an empty link (nothing to see or click) and the
    text part read "The chart: , and the [n]"."""
    note = next(div for div in _html_part(edited / "en/issue-13.eml").iter("div") if div.get("class") == "note")
    assert not list(note.iter("img"))
    links = {"".join(a.itertext()): a.get("href") for a in note.iter("a")}
    assert links["Energy per token, by chip"] == "https://example.org/chart.png"
    assert links["report's cover"] == "https://example.org/report"
    assert "" not in links, "an empty link"
    body, references = _text_part(edited / "en/issue-13.eml")
    assert _linked(body, "The chart: Energy per token, by chip", references) == "https://example.org/chart.png"
    assert _linked(body, "and the report's cover", references) == "https://example.org/report"
    assert "https://example.org/cover.png" not in references.values()
    assert "https://example.org/ornament.png" not in references.values()


def test_an_image_reads_as_its_alt_attribute_holds_it_in_both_parts(edited):
    """An image's alt text written with Markdown read as its Markdown in the text part ("*Energy* per `token` \\*
    &amp; <b>more</b>"), where the HTML part's link reads its text, as the page's `alt` attribute does."""
    alt = "Energy per token * & more"
    note = next(div for div in _html_part(edited / "en/issue-13.eml").iter("div") if div.get("class") == "note")
    links = {"".join(a.itertext()): a.get("href") for a in note.iter("a")}
    assert links[alt] == "https://example.org/figure.png"
    body, references = _text_part(edited / "en/issue-13.eml")
    assert _linked(body, f"The figure {alt}", references) == "https://example.org/figure.png"


def test_html_in_a_formula_and_mathml_outside_one_keep_their_text_in_both_parts(edited):
    """A <b> in a formula stood after it, and an <mi> outside a formula went with its text: the formula holds the
    <b>'s text in an <mtext>, the <mi>'s stands in the sentence, and the text part reads both."""
    note = next(div for div in _html_part(edited / "en/issue-13.eml").iter("div") if div.get("class") == "note")
    formula = next(math for math in note.iter("{http://www.w3.org/1998/Math/MathML}math")
                   if math.get("alttext") is None)
    assert [(element.tag.split("}")[1], element.text) for element in formula] == [
        ("mi", "x"), ("mo", "+"), ("mtext", "y")]
    paragraph = next(p for p in note.iter("p") if formula in list(p))
    assert " ".join("".join(paragraph.itertext()).split()).endswith("x+y with z.")
    body, _ = _text_part(edited / "en/issue-13.eml")
    assert "x+y with z." in " ".join(body.split())


def test_decoration_in_a_sentence_leaves_no_space_before_the_punctuation_after_it(edited):
    """"Two ![](x.png)." read "Two ." in both parts: the space before the dropped image stayed."""
    note = next(div for div in _html_part(edited / "en/issue-13.eml").iter("div") if div.get("class") == "note")
    shown = ["".join(p.itertext()) for p in note.iter("p")]
    assert "Two. Then three." in shown, shown
    assert any(text.endswith("and the report's cover.") for text in shown), shown
    body, references = _text_part(edited / "en/issue-13.eml")
    assert "\n\nTwo. Then three.\n\n" in body, body
    cover = next(n for n, url in references.items() if url == "https://example.org/report")
    assert f"report's cover [{cover}].\n" in body, body


def test_a_paragraph_or_link_holding_only_decoration_leaves_nothing_behind(edited):
    """An image without alt text is dropped: the paragraph it stood alone in was left as an empty <p></p> (a gap
    of its margin), and a link around it as an empty link, read in the text part as a bare "[n]"."""
    note = next(div for div in _html_part(edited / "en/issue-13.eml").iter("div") if div.get("class") == "note")
    empty = [element.tag for element in note.iter() if element.tag in ("p", "a")
             and not "".join(element.itertext()).strip() and not len(element)]
    assert empty == [], empty
    assert "https://example.org/sponsor" not in {a.get("href") for a in note.iter("a")}
    last = [element for element in note if element.tag == "p"][-1]
    assert "".join(last.itertext()) == "That is all this week."
    body, references = _text_part(edited / "en/issue-13.eml")
    assert "https://example.org/sponsor" not in references.values()
    assert "--enable-fast-loading\n\nThat is all this week.\n" in body, body  # no gap, no bare mark


def test_a_link_the_pages_refuse_reads_as_its_text_in_the_text_part(edited):
    """`[this one](javascript:…)` read as its Markdown, brackets, scheme and all; its text now, with no mark."""
    body, references = _text_part(edited / "en/issue-13.eml")
    assert "Do not follow this one or that one." in " ".join(body.split())
    assert not any(url.startswith(("javascript:", "data:")) for url in references.values())


def test_an_embed_is_a_link_to_the_page_it_embeds_in_both_parts(edited):
    """An <iframe> (a video, a chart) left nothing in either part: it is a link named by its title, the address
    when it has none, which the text part reads where it stands (and does not list again)."""
    message = edited / "en/issue-13.eml"
    note = next(div for div in _html_part(message).iter("div") if div.get("class") == "note")
    assert not list(note.iter("iframe"))
    links = {"".join(a.itertext()): a.get("href") for a in note.iter("a")}
    assert links["the talk, <b>live</b>"] == "https://www.youtube.com/embed/abc?start=5&rel=0"
    assert links["https://example.org/embed/chart"] == "https://example.org/embed/chart"
    shown = [" ".join("".join(p.itertext()).split()) for p in note.iter("p")]
    assert "Watch the talk, <b>live</b> now." in shown, shown
    body, references = _text_part(message)
    assert _linked(body, "Watch the talk, <b>live</b>", references) == "https://www.youtube.com/embed/abc?start=5&rel=0"
    assert "\n\nhttps://example.org/embed/chart\n\n" in body, body
    assert "https://example.org/embed/chart" not in references.values()
    assert "frames" not in body


def test_raw_html_that_lost_its_content_reaches_both_parts(edited):
    """An <xmp>, an <applet>, a formula and a protocol-relative embed left nothing in the email: the <xmp>'s text
    is preformatted text, the applet's fallback is shown, the formula is MathML (its `alttext` in the text part)
    and the embed a link to `https://…`."""
    message = edited / "en/issue-13.eml"
    note = next(div for div in _html_part(message).iter("div") if div.get("class") == "note")
    assert "<b>bold</b> & more" in [pre.text for pre in note.iter("pre")]
    [formula] = [math for math in note.iter("{http://www.w3.org/1998/Math/MathML}math") if math.get("alttext")]
    assert formula.get("alttext") == "x squared" and "".join(formula.itertext()) == "x2"
    links = {"".join(a.itertext()): a.get("href") for a in note.iter("a")}
    assert links["the protocol-relative talk"] == "https://video.example.org/v"
    assert not [element for element in note.iter() if element.tag in ("xmp", "applet", "iframe")]
    body, references = _text_part(message)
    assert "Type <b>bold</b> & more" in body and "in an old applet, with x squared" in " ".join(body.split())
    assert _linked(body, "with x squared and the protocol-relative talk", references) == "https://video.example.org/v"


def test_the_text_part_numbers_raw_links_and_embeds_in_reading_order_as_markdown_links(edited):
    """A raw `<a href>` read as its text alone, without the `[n]` a Markdown link gets, and an embed's `[n]` was
    numbered after every Markdown link of its paragraph: each link reads `text [n]`, numbered as read."""
    body, references = _text_part(edited / "en/issue-13.eml")
    order = [("First the raw link", "https://order.example.org/raw"),
             ("then the embedded chart", "https://order.example.org/embed"),
             ("then the Markdown link", "https://order.example.org/markdown"),
             ("and the last raw one", "https://order.example.org/last"),
             ("A block's raw link", "https://order.example.org/block")]
    assert [_linked(body, words, references) for words, _ in order] == [url for _, url in order]
    numbers = [number for url in (url for _, url in order) for number, listed in references.items() if listed == url]
    assert numbers == sorted(numbers) and numbers == list(range(numbers[0], numbers[0] + 5)), numbers


def test_a_quote_is_marked_in_the_text_part_as_mail_marks_one(edited):
    """Unmarked, a quoted statement read as the editor's own words; each of its lines starts with "> ", and it
    is wrapped within the width with its marks."""
    body, _ = _text_part(edited / "en/issue-13.eml")
    quote = re.search(r"As the study's authors put it:\n\n((?:>.*\n)+)", body)
    assert quote, body
    assert quote.group(1) == ("> Software settings mattered at least as much as the chip itself, and no\n"
                              "> vendor's numbers can be compared without them.\n"
                              ">\n"
                              "> We publish every setting.\n")


def test_the_text_part_keeps_paragraphs_apart_and_list_items_on_their_own_lines(edited):
    """Each paragraph of the note and a summary is wrapped on its own; each list item starts a line."""
    body, _ = _text_part(edited / "en/issue-13.eml")
    summary = re.search(r"public\.\n\nWhat they found:\n\n(- the differences .*?)\nSource:", body, re.S)
    assert summary, body
    items = summary.group(1).splitlines()
    assert items[0].startswith("- the differences") and items[-1] == "- software settings mattered at least as much"
    assert len(items) > 2 and all(re.match(r"  \S", line) for line in items[1:-1]), items  # a hanging indent
    assert re.search(r"Issue 12(?: \[\d+\])?\.\n\nIn this issue:\n\n- the chips of three companies\n"
                     r"- a guide to labelling machine-written text\n", body), body
    hungarian, _ = _text_part(edited / "hu/issue-13.eml")
    assert re.search(r"olvashatsz\.\n\nAz eredmények:\n\n- a chipek közötti különbség elérte a két-háromszorost"
                     r"(?: \[\d+\])?\n- a szoftveres beállítások legalább ennyit számítottak\n", hungarian), hungarian


def _too_long(body: str, width: int = 72) -> list[str]:
    """Lines over `width` that could have been broken: more than one word (a URL or a long word may stay)."""
    return [line for line in body.splitlines() if len(line) > width and len(line.split()) > 1]


def test_headlines_and_source_lines_are_wrapped_without_breaking_words(edited):
    for lang in ("hu", "en"):
        body, _ = _text_part(edited / f"{lang}/issue-13.eml")
        assert not _too_long(body), f"{lang}: {_too_long(body)}"
    hungarian, _ = _text_part(edited / "hu/issue-13.eml")
    assert LONG_WORD in hungarian.split(), "a long word is never broken"
    body, references = _text_part(edited / "en/issue-13.eml")
    assert _linked(body, LONG_HEADLINE, references).endswith(f"#story-{STORY_KEY}")
    sources = re.search(r"^Source: arXiv \[\d+\],.*?\n(?:\S.*\n)*", body, re.M).group(0)
    assert len(sources.splitlines()) > 1
    assert _linked(sources, "The International Journal of Energy-Efficient Computing Systems and Data Center "
                   "Engineering", references) == "https://journal.example.org/energy-per-token"


def test_citations_link_the_story_s_sources_in_both_parts(edited):
    """`[1]` in a summary is a citation mark linking the source, in the HTML as in the feeds, not literal text."""
    for lang in ("hu", "en"):
        story = _story_parts(_html_part(edited / f"{lang}/issue-13.eml"), STORY_KEY)
        marks = [sup for element in story for sup in element.iter("sup")]
        assert [sup.get("class") for sup in marks] == ["cite", "cite"]
        assert [sup.find("a").text for sup in marks] == ["1", "2"]
        # As in the section feed: each mark links its source in the issue's source list, absolutely.
        assert [sup.find("a").get("href") for sup in marks] == [
            f"{BASE}{lang}/issues/13/#story-{STORY_KEY}--source-{n}" for n in (1, 2)]
        assert not any("[1]" in "".join(element.itertext()) or "[2]" in "".join(element.itertext())
                       for element in story)
        # In the text part a citation reads as the number its source has in the "Source:" line.
        body, references = _text_part(edited / f"{lang}/issue-13.eml")
        listed = re.search(r"(?:Source|Forrás): arXiv \[(\d+)\], IEEE Spectrum \[(\d+)\]", body)
        assert listed, body
        first, second = (references[int(n)] for n in listed.groups())
        assert first == "https://arxiv.org/abs/2611.02871"
        assert _linked(body, "tokenre" if lang == "hu" else "token took", references) == first
        assert _linked(body, "két-háromszorost" if lang == "hu" else "the operator chose", references) == second


def _styles(document, tag: str, css_class: str | None = None) -> list[str]:
    return [element.get("style") or "" for element in document.iter(tag)
            if css_class is None or css_class in (element.get("class") or "").split()]


def test_long_words_wrap_instead_of_widening_the_email(edited):
    """A 227-character word in a headline, or a long line of code, must not widen the 600 px table: phones would
    scroll sideways."""
    for lang in ("hu", "en"):
        document = _html_part(edited / f"{lang}/issue-13.eml")
        shown = [*(_styles(document, "td", name) for name in ("bar", "cell", "footer")),
                 *(_styles(document, tag) for tag in ("h1", "h2", "h3", "p", "li", "a", "pre"))]
        styles = [style for group in shown for style in group]
        assert styles and all(group for group in shown[:3])
        for style in styles:
            assert "overflow-wrap: anywhere" in style and "word-break: break-word" in style, style
    # A code block's line too: `pre` keeps the line breaks written, and wraps a line wider than the email.
    blocks = list(_html_part(edited / "en/issue-13.eml").iter("pre"))
    assert blocks and all(_style(pre).get("white-space") == "pre-wrap" for pre in blocks), [b.get("style") for b in blocks]


def _luminance(colour: str) -> float:
    """WCAG 2 relative luminance of a `#rrggbb` colour."""
    channels = [int(colour[index:index + 2], 16) / 255 for index in (1, 3, 5)]
    r, g, b = (c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def _contrast(one: str, other: str) -> float:
    light, dark = sorted((_luminance(one), _luminance(other)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def _dark_rules(document) -> list[tuple[list[str], dict[str, str]]]:
    """(selectors, declarations) of each rule in the email's dark-mode media query."""
    css = "".join(style.text or "" for style in document.iter("style"))
    block = re.search(r"@media \(prefers-color-scheme: dark\)\s*\{((?:[^{}]*\{[^{}]*\})*)[^{}]*\}", css)
    assert block, "no dark-mode media query"
    rules = []
    for selectors, body in re.findall(r"([^{}]+)\{([^{}]*)\}", block.group(1)):
        declarations = dict(re.findall(r"([a-z-]+)\s*:\s*([^;]+?)\s*(?:!important)?\s*(?:;|$)", body))
        rules.append(([s.strip() for s in selectors.split(",")], declarations))
    return rules


def test_dark_mode_colours_every_text_readably(emails):
    """Each text colour of the dark mode has a WCAG contrast of at least 4.5:1 on every dark background, and
    nothing coloured in light mode keeps its light-mode colour (dark on dark) there."""
    assert _contrast("#ffffff", "#000000") == pytest.approx(21)
    assert _contrast("#57606a", "#1f2226") == pytest.approx(2.5, abs=0.01)  # the light grey meta text, before
    for lang in ("hu", "en"):
        document = _html(emails / f"{lang}/issue-13.html")
        rules = _dark_rules(document)
        backgrounds = {d["background-color"] for _, d in rules if "background-color" in d}
        assert "#1f2226" in backgrounds
        for selectors, declarations in rules:
            if "color" not in declarations or selectors == [".preheader"]:  # hidden: its colour is the background's
                continue
            for background in backgrounds:
                ratio = _contrast(declarations["color"], background)
                assert ratio >= 4.5, f"{lang}: {selectors} {declarations['color']} on {background}: {ratio:.2f}:1"
        coloured = {selector for selectors, declarations in rules if "color" in declarations for selector in selectors}
        for element in document.iter():
            if not isinstance(element.tag, str) or not re.search(r"(?:^|;)\s*color:", element.get("style") or ""):
                continue
            names = {f".{name}" for name in (element.get("class") or "").split()} | {element.tag}
            assert names & coloured, f"{lang}: <{element.tag} class={element.get('class')!r}> has no dark colour"


@pytest.mark.sqlite_only("a function of the settings alone")
def test_the_longest_message_id_a_list_id_allows_fits_the_record_of_a_send():
    """A send records each Message-ID in a column of 250 characters (PostgreSQL refused a longer one on a
    traceback after the message was sent): the longest list id the settings take, the highest issue number,
    a subscriber's token and a preview's mark together stay within it."""
    from newsroom.mail.models import Send
    from newsroom.render.email_headers import Recipient, message_id
    from newsroom.settings import LIST_ID_LENGTH, SUPPORTED_LANGUAGES, Settings

    settings = Settings(list_id=f"{'w' * (LIST_ID_LENGTH - 12)}.example.org")
    assert len(settings.list_id) == LIST_ID_LENGTH
    longest = max((message_id(settings, 2_147_483_647, lang, Recipient("a@example.org", "f" * 64), b"parts")
                   for lang in SUPPORTED_LANGUAGES), key=len)
    assert len(longest) <= Send.__table__.c.message_id.type.length == 250, longest


#: How the spaces before a dropped decorative image went before they were walked back from it (a pattern
#: searched for them from every space of the text): what an email shows now must be what this made.
_OLD_DECORATION_GAP = re.compile(r"([ \t\n]*)\x00(.?)", re.DOTALL)
_GAP_PIECES = [" ", "\t", "\n", "\u00a0", "\x00", "a", ".", ",", ")", "(", "<p>", "</p>", "\n\n", "word"]


@given(st.lists(st.sampled_from(_GAP_PIECES), max_size=30))
@example(["a", " ", "\x00", " ", "\x00", "."])  # the space after one is the space before the next
def test_the_gap_a_decorative_image_leaves_closes_as_the_search_from_every_space_closed_it(pieces: list[str]) -> None:
    """Whatever mix of spaces, punctuation and images dropped as decoration, the spaces before each go (unless
    what follows closes a word or is a space), as a search from every space made it."""
    html = "".join(pieces)

    def closed(gap: re.Match[str]) -> str:
        spaces, following = gap.groups()
        return following if closes_a_word(following) or following.isspace() else spaces + following

    assert email_images._gaps_closed(html) == _OLD_DECORATION_GAP.sub(closed, html)


def test_decorative_images_between_spaces_leave_one_paragraph_without_gaps() -> None:
    """A paragraph of thousands of images without alt text between spaces keeps one space for each, no image."""
    html = "<p>a" + ' <img src="x.png" alt=""> ' * 2000 + "b</p>"
    assert email_images.images_as_links(html) == "<p>a" + " " * 2000 + "b</p>"
