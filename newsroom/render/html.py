"""HTML pages: one Jinja2 environment per language, autoescaping, gettext labels.

Templates compile once per (language, template folder state): the environment
is cached under a hash of the folder's files and of the catalog, so an edited
template or catalog is picked up by the next build in the same process, and
an unchanged one is never recompiled. `template_fingerprint` names exactly the
template sources a page used (its template, and every template it extends,
includes or imports), so the build redoes only the pages an edited template
touches.
"""

from __future__ import annotations

import hashlib
import os
import traceback
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path
from types import BuiltinFunctionType, BuiltinMethodType, FunctionType, MethodType
from typing import TYPE_CHECKING, Any

from jinja2 import (ChainableUndefined, Environment, FileSystemBytecodeCache, FileSystemLoader, TemplateError, meta,
                    nodes, pass_eval_context, select_autoescape)
from jinja2.bccache import Bucket
from jinja2.compiler import CodeGenerator, Frame, optimizeconst
from jinja2.nodes import EvalContext
from jinja2.runtime import Context
from jinja2.utils import _PassArg
from jinja2.visitor import NodeTransformer
from markupsafe import Markup

from newsroom.diagnostics import ContentError, Diagnostic
from newsroom.i18n import catalog_digest, format_count, format_message, translations
from newsroom.render.folder import TEMPLATES, folder_digest
from newsroom.render.markdown import headings_under

if TYPE_CHECKING:
    from newsroom.build.memos import Memo

#: The version of the code `_CodeGenerator` writes, in the names of the compiled templates kept between
#: processes: code compiled by another version (or by plain Jinja) is never loaded into this one.
CODE_LAYOUT = 3


class _BytecodeCache(FileSystemBytecodeCache):
    """Jinja's cache of compiled templates in files, keyed by the template's path and the environment's
    `translated` (its language and catalog): the code of a template holds its translated labels (see
    `_FoldTranslations`), so each language's, and each catalog's, is its own."""

    def get_bucket(self, environment: Environment, name: str, filename: str | None, source: str) -> Bucket:
        return super().get_bucket(environment, f"{name}|{getattr(environment, 'translated', '')}", filename, source)


def _bytecode_cache() -> FileSystemBytecodeCache | None:
    """Compiled templates, kept between processes (each build is one) in the user's temporary folder,
    under a hash of the template's path, language and catalog, and checked against a hash of its
    source; none where that folder cannot be made."""
    try:
        return _BytecodeCache(pattern=f"__newsroom_{CODE_LAYOUT}_%s.cache")
    except (OSError, RuntimeError):
        return None


BYTECODE = _bytecode_cache()


def environment(lang: str, templates: Path = TEMPLATES) -> Environment:
    """A template environment whose `_()` speaks `lang`; templates compile once per language and version."""
    return _environment(lang, templates, folder_digest(templates), catalog_digest(lang))


#: Every name a dict has as an attribute (a dict has no attributes of its own).
_DICT_ATTRIBUTES = frozenset(dir(dict))


_ESCAPES = (("&", "&amp;"), (">", "&gt;"), ("<", "&lt;"), ("'", "&#39;"), ('"', "&#34;"))


def _escape_text(text: str) -> str:
    """`text` escaped as MarkupSafe escapes it (the same five characters, the same references), as plain
    text: no `Markup` made."""
    for char, reference in _ESCAPES:
        if char in text:
            text = str.replace(text, char, reference)  # str's own: a str subclass (Markup) escapes its arguments
    return text


try:  # what MarkupSafe's `escape` does to a str itself, in C and in one pass: three times as fast on a page's values
    from markupsafe._speedups import _escape_inner as escape_text
except ImportError:  # a MarkupSafe without its compiled part (or a later one that renamed it)
    escape_text = _escape_text


def escape_output(value: Any) -> str:
    """What an autoescaped `{{ value }}` writes: `markupsafe.escape(value)` as plain text.

    Jinja calls `escape` for every value a page shows, and each call makes a `Markup`: a Python-level
    constructor for text that is only ever joined into the page (a twentieth of a page's time).
    """
    if type(value) is str:
        return escape_text(value)
    html = getattr(value, "__html__", None)
    if html is not None:
        text = html()
        return text if isinstance(text, str) else str(text)
    return escape_text(str(value))


class _CodeGenerator(CodeGenerator):
    """Jinja's compiler, writing `environment.escape_output(…)` (see `escape_output`) where it writes `escape(…)`
    around a value a template outputs with autoescaping on, and `name.attribute` of a dict in place (see
    `visit_Getattr`); everything else as Jinja compiles it."""

    @optimizeconst
    def visit_Getattr(self, node: nodes.Getattr, frame: Frame) -> None:
        """`name.attribute`, where the name holds a dict with that key and dict has no such attribute,
        as the item, taken in place: what `_Environment.getattr` answers, without a call (a page reads
        hundreds of its context's fields so). Anything else goes to `environment.getattr`."""
        if (self.environment.is_async or not isinstance(node.node, nodes.Name) or node.node.ctx != "load"
                or node.attr in _DICT_ATTRIBUTES):
            super().visit_Getattr(node, frame)
            return
        ref, attribute = frame.symbols.ref(node.node.name), repr(node.attr)
        self.write(f"({ref}[{attribute}] if type({ref}) is dict and {attribute} in {ref} else environment.getattr(")
        self.visit(node.node, frame)
        self.write(f", {attribute}))")

    def _output_child_pre(self, node: nodes.Expr, frame: Frame, finalize: Any) -> None:
        if frame.eval_ctx.volatile or not frame.eval_ctx.autoescape:
            super()._output_child_pre(node, frame, finalize)
            return
        self.write("environment.escape_output(")
        if finalize.src is not None:
            self.write(finalize.src)


#: Callables with no `__call__` of their own that could ask for the context (see `_Context`).
_PLAIN_CALLABLES = frozenset({FunctionType, MethodType, BuiltinFunctionType, BuiltinMethodType})


class _Context(Context):
    """Jinja calls whatever a template calls through `Context.call`, which first asks the callable's
    `__call__` whether it takes the context, then the callable itself (a page makes about a hundred
    such calls: `_()`, `href()`, a macro). A function's or method's `__call__` never does: for them
    only the callable is asked, and the call made as Jinja makes it; any other goes Jinja's way."""

    def call(self, obj: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Any:
        if type(obj) not in _PLAIN_CALLABLES:
            return super().call(obj, *args, **kwargs)
        passed = getattr(obj, "jinja_pass_arg", None)
        if kwargs:
            if passed is _PassArg.context:
                return super().call(obj, *args, **kwargs)  # it may be given the loop's or block's variables
            kwargs.pop("_block_vars", None)
            kwargs.pop("_loop_vars", None)
        if passed is _PassArg.eval_context:
            args = (self.eval_ctx, *args)
        elif passed is _PassArg.context:
            args = (self, *args)
        elif passed is _PassArg.environment:
            args = (self.environment, *args)
        try:
            return obj(*args, **kwargs)
        except StopIteration:
            return self.environment.undefined("value was undefined because a callable raised a StopIteration exception")


class _Environment(Environment):
    """Jinja's `obj.name` takes the attribute, else the item, finding out by raising AttributeError. A
    page's context is mostly dicts, which raise for every key they hold (a tenth of a page's time): a
    dict's item is taken at once when dict has no attribute of that name — the same answer."""

    code_generator_class = _CodeGenerator
    context_class = _Context
    escape_output = staticmethod(escape_output)
    #: The translation of a message, when the labels of a template are translated as it compiles.
    translate: Callable[[str], str] | None = None
    #: What the compiled code's labels depend on (language and catalog): part of its key in BYTECODE.
    translated = ""

    def _generate(self, source: nodes.Template, name: str | None, filename: str | None,
                  defer_init: bool = False) -> str:
        if self.translate is not None:
            source = _FoldTranslations(self.translate, source).visit(source)
        return super()._generate(source, name, filename, defer_init)

    def getattr(self, obj: Any, attribute: str) -> Any:
        if type(obj) is dict and attribute not in _DICT_ATTRIBUTES:
            try:
                return obj[attribute]
            except KeyError:
                return self.undefined(obj=obj, name=attribute)
        return super().getattr(obj, attribute)


@lru_cache(maxsize=16)
def _environment(lang: str, templates: Path, _folder: str, _catalog: str) -> Environment:
    env = _Environment(
        loader=FileSystemLoader(str(templates)),
        autoescape=select_autoescape(("html", "xml"), default_for_string=True),
        extensions=["jinja2.ext.i18n"],
        undefined=ChainableUndefined,  # optional record fields are simply absent
        trim_blocks=True,
        lstrip_blocks=True,
        auto_reload=False,
        bytecode_cache=BYTECODE,
    )
    env.policies["ext.i18n.trimmed"] = True
    catalog = translations(lang)
    env.install_gettext_translations(catalog, newstyle=True)  # type: ignore[attr-defined]
    # `_` and `{% trans %}` both call `gettext`: one remembered lookup per message instead of
    # Jinja's alias → context call → catalog → Markup → format (a tenth of an entry page's time).
    lookup = getattr(catalog, "ugettext", catalog.gettext)
    env.globals["_"] = env.globals["gettext"] = _remembered_gettext(lookup)
    env.globals["ngettext"] = _plural_gettext(getattr(catalog, "ungettext", catalog.ngettext), lang)
    env.translate, env.translated = lookup, f"{lang}|{_catalog}"
    env.filters["headings_under"] = headings_under
    return env


class _FoldTranslations(NodeTransformer):
    """`_("…")` and `gettext("…")` of a literal message without variables (a `{% trans %}` block without
    any too), replaced by the text that call returns: the translation, formatted (`%%` is `%`), safe
    where autoescaped. A page shows dozens of labels; each was a call, a lookup and an escape on every
    rendering. Not where the template gives either name a value of its own, nor a message that is no
    valid format (its call fails as it did)."""

    NAMES = frozenset({"_", "gettext"})

    def __init__(self, translate: Callable[[str], str], template: nodes.Template) -> None:
        self.translate = translate
        self.names = self.NAMES - {node.name for node in template.find_all(nodes.Name) if node.ctx != "load"}

    def visit_Call(self, node: nodes.Call) -> nodes.Node:
        node = self.generic_visit(node)
        callee, args = node.node, node.args
        if not (isinstance(callee, nodes.Name) and callee.name in self.names and len(args) == 1
                and isinstance(args[0], nodes.Const) and type(args[0].value) is str
                and not node.kwargs and node.dyn_args is None and node.dyn_kwargs is None):
            return node
        try:
            text = format_message(self.translate(args[0].value), {})
        except (TypeError, ValueError, KeyError):
            return node
        return nodes.MarkSafeIfAutoescape(nodes.Const(text, lineno=node.lineno), lineno=node.lineno)


def _remembered_gettext(lookup: Callable[[str], str]) -> Callable[..., str]:
    """Jinja's newstyle `gettext` (the message is a %-format; autoescaped it is Markup, so the
    variables are escaped), remembering each message's translation, and its text when it takes no
    variables."""
    messages: dict[tuple[str, bool], str] = {}  # (message, autoescaped) → its translation
    texts: dict[tuple[str, bool], str] = {}  # the same, formatted without variables

    @pass_eval_context
    def gettext(eval_ctx: EvalContext, __string: str, **variables: Any) -> str:
        key = (__string, eval_ctx.autoescape)
        if not variables and (known := texts.get(key)) is not None:
            return known
        message = messages.get(key)
        if message is None:
            message = lookup(__string)
            message = messages[key] = Markup(message) if eval_ctx.autoescape else message
        if variables:
            return format_message(message, variables)
        text = texts[key] = format_message(message, variables)  # always a format: "%%" is "%"
        return text

    return gettext


def _plural_gettext(lookup: Callable[[str, str, int], str], lang: str) -> Callable[..., str]:
    """Jinja's newstyle `ngettext` (`num` is the count unless given), formatting as `gettext` does; the
    count is shown as `lang` writes a number ("13 000 hír", "1,300 stories"), not as Python prints it."""

    @pass_eval_context
    def ngettext(eval_ctx: EvalContext, __singular: str, __plural: str, __num: int, **variables: Any) -> str:
        variables.setdefault("num", __num)
        if type(__num) is int:
            shown = format_count(__num, lang)
            variables = {name: shown if type(value) is int and value == __num else value
                         for name, value in variables.items()}
        message = lookup(__singular, __plural, __num)
        return format_message(Markup(message) if eval_ctx.autoescape else message, variables)

    return ngettext


def render(template: str, lang: str, context: Mapping[str, Any], templates: Path = TEMPLATES,
           env: Environment | None = None) -> bytes:
    """Render one page to bytes (pass `env` when rendering many, to skip the cache lookup)."""
    env = env or environment(lang, templates)
    with template_errors(env):
        return env.get_template(template).render(**context).encode("utf-8")


class TemplateFailure(ContentError):
    """A template that failed as it rendered (see `template_errors`)."""


@contextmanager
def template_errors(env: Environment) -> Iterator[None]:
    """A template of one's own (`--templates`) that fails as it renders — a division by zero, a filter
    given what it cannot take — stops the build with its file and line, as one that does not parse does.
    A failure inside the engine's own code keeps its traceback: that is a bug to report, not a template
    to mend."""
    try:
        yield
    except ContentError:
        raise
    except Exception as error:
        assert isinstance(env.loader, FileSystemLoader)
        folder = os.path.join(os.path.abspath(env.loader.searchpath[0]), "")
        frames = traceback.extract_tb(error.__traceback__)
        mine = [frame for frame in frames if frame.filename.startswith(folder)]
        if not mine or not (frames[-1].filename.startswith(folder) or isinstance(error, TemplateError)):
            raise
        where = mine[-1]
        raise TemplateFailure([Diagnostic(where.filename, where.lineno, "",
                                          f"template error: {type(error).__name__}: {error}")]) from None


def used_templates(env: Environment, template: str, memo: Memo | None = None) -> list[str] | None:
    """`template` and every template it extends, includes or imports; None when a name is computed.

    Parsing is cached under the folder's digest, and remembered in `memo` (the build's) across
    builds: it costs more than rendering a page.
    """
    assert isinstance(env.loader, FileSystemLoader)
    folder = Path(env.loader.searchpath[0])
    digest = folder_digest(folder)
    key = hashlib.sha1(f"{digest}|{template}".encode()).hexdigest()
    known = memo.get(key) if memo is not None else None
    if known is not None:
        return known[0]
    found = _used_templates(_Parser(env), template, folder, digest)
    names = list(found) if found is not None else None
    if memo is not None:
        memo.put(key, [names])
    return names


class _Parser:
    """An environment as a cache key that ignores which one: every language's parses a template alike."""

    def __init__(self, env: Environment) -> None:
        self.env = env

    def __hash__(self) -> int:
        return 0

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Parser)


@lru_cache(maxsize=256)
def _used_templates(parser: _Parser, template: str, folder: Path, digest: str) -> tuple[str, ...] | None:
    seen: list[str] = []
    todo = [template]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.append(name)
        for referenced in _referenced(parser, name, folder, digest):
            if referenced is None:
                return None
            todo.append(referenced)
    return tuple(sorted(seen))


@lru_cache(maxsize=1024)
def _referenced(parser: _Parser, name: str, _folder: Path, _digest: str) -> tuple[str | None, ...]:
    """The templates `name` itself extends, includes or imports (None for a computed name): each template is
    parsed once, however many of the others use it (the base layout and the macros, by every page's)."""
    env = parser.env
    assert env.loader is not None
    source, filename, _ = env.loader.get_source(env, name)
    return tuple(meta.find_referenced_templates(env.parse(source, name, filename)))


def template_fingerprint(env: Environment, template: str, folder: Path, memo: Memo | None = None) -> str:
    """A hash of the sources `template` renders from (the whole folder when that can't be known)."""
    names = used_templates(env, template, memo)
    if names is None:
        return folder_digest(folder)
    digest = hashlib.sha256()
    for name in names:
        digest.update(name.encode() + b"\0" + (folder / name).read_bytes() + b"\0")
    return digest.hexdigest()
