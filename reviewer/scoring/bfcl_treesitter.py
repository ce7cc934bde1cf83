"""BFCL's Java and JavaScript answer parsers (tree-sitter), rule for rule.

Ported from bfcl-eval (Apache-2.0, ShishirPatil/gorilla,
``bfcl_eval/model_handler/parser/{java,js}_parser.py``) and the Java /
JavaScript branch of ``ast_parse``: a prompting model's answer in the
simple_java and simple_javascript categories is Java or JavaScript call syntax
(``Calc.add(a=5L, b="x")``), parsed with the tree-sitter grammars; each
argument keeps its source text (quotes stripped from string literals), and the
checker converts it by the declared type (reviewer.scoring.bfcl_types).

The tree-sitter packages (``tree-sitter``, ``tree-sitter-java``,
``tree-sitter-javascript``, the versions bfcl-eval pins) are optional:
``available()`` says whether they are installed; without them such answers are
reported "not scored" by the scorer, with this reason.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from reviewer.scoring.bfcl_decode import DecodeError

MISSING_REASON = "tree-sitter, tree-sitter-java and tree-sitter-javascript are not installed"


@lru_cache(maxsize=None)
def _parser(language: str):
    """A tree-sitter parser for "java" or "javascript"; None when the packages are absent."""
    try:
        from tree_sitter import Language, Parser

        if language == "java":
            import tree_sitter_java as grammar
        else:
            import tree_sitter_javascript as grammar
    except ImportError:
        return None
    try:
        lang = Language(grammar.language(), language)  # tree-sitter 0.21 (what bfcl-eval pins)
    except TypeError:
        lang = Language(grammar.language())
    parser = Parser()
    if hasattr(parser, "set_language"):
        parser.set_language(lang)
    else:
        parser.language = lang
    return parser


def available() -> bool:
    return _parser("java") is not None and _parser("javascript") is not None


def _has_error(root) -> bool:
    """The official test: "ERROR" in the tree's S-expression."""
    sexp = root.sexp() if hasattr(root, "sexp") else str(root)
    return "ERROR" in sexp


def decode_prompting(text: str, language: str) -> Any:
    """``default_decode_ast_prompting`` for the Java or JavaScript return format.

    Returns what the official parser returns (a list of one call, or {} / None
    when no call was found, which the scorer reports as the wrong output format);
    raises DecodeError where it raises.
    """
    parser = _parser(language)
    if parser is None:
        raise RuntimeError(MISSING_REASON)
    if not isinstance(text, str):
        raise DecodeError(f"the answer is a {type(text).__name__}, not text")
    result = text.strip("`\n ")
    if not result.startswith("["):
        result = "[" + result
    if not result.endswith("]"):
        result = result + "]"
    source = result[1:-1]  # sic: the official code strips the brackets it may have just added
    try:
        return _java(parser, source) if language == "java" else _javascript(parser, source)
    except DecodeError:
        raise
    except Exception as exc:  # the official parsers raise on these too
        raise DecodeError(f"{type(exc).__name__}: {exc}") from None


def _java(parser, source: str) -> Any:
    tree = parser.parse(bytes(source, "utf8"))
    root = tree.root_node
    if _has_error(root):
        raise DecodeError("Error parsing java the source code.")

    def text_of(node) -> str:
        # The official code slices the str by byte offsets; identical for ASCII, and for
        # other text it slices what the byte offsets point at in the str, so we do the same.
        return source[node.start_byte:node.end_byte]

    def traverse_node(node, nested=False):
        if node.type in ("string_literal", "character_literal"):
            return text_of(node) if nested else text_of(node)[1:-1]
        if node.type in ("identifier", "class_literal", "type_identifier", "method_invocation"):
            return text_of(node)
        if node.type == "array_creation_expression":
            type_text = traverse_node(node.child_by_field_name("type"), True)
            value_text = traverse_node(node.child_by_field_name("value"), True)
            return f"new {type_text}[]{value_text}"
        if node.type == "object_creation_expression":
            type_text = traverse_node(node.child_by_field_name("type"), True)
            arguments = node.child_by_field_name("arguments")
            if arguments:
                texts = [traverse_node(c, True) for c in arguments.children if c.type not in (",", "(", ")")]
                return f"new {type_text}({', '.join(texts)})"
            return f"new {type_text}()"
        if node.type == "set":
            items = [traverse_node(n, True) for n in node.children if n.type not in (",", "set")]
            return "{" + ", ".join(items) + "}"
        if node.child_count > 0:
            return "".join(traverse_node(c, True) for c in node.children)
        return text_of(node)

    def extract_arguments(args_node) -> dict:
        arguments: dict = {}
        for child in args_node.children:
            if child.type == "assignment_expression":
                name, value = text_of(child.children[0]), traverse_node(child.children[2])
            elif child.type in ("identifier", "class_literal", "set"):
                name, value = None, traverse_node(child)
            else:
                continue
            if name in arguments:
                if not isinstance(arguments[name], list):
                    arguments[name] = [arguments[name]]
                arguments[name].append(value)
            else:
                arguments[name] = value
        return arguments

    def traverse(node):
        if node.type == "method_invocation":
            method = text_of(node.child_by_field_name("name"))
            owner = node.child_by_field_name("object")
            name = f"{text_of(owner)}.{method}" if owner else method
            arguments_node = node.child_by_field_name("arguments")
            if arguments_node:
                arguments = extract_arguments(arguments_node)
                if any(isinstance(v, list) for v in arguments.values()):
                    raise DecodeError("Error: Multiple arguments with the same name are not supported.")
                return [{name: arguments}]
            return None
        for child in node.children:
            found = traverse(child)
            if found:
                return found
        return None

    found = traverse(root)
    return found if found else {}


def _javascript(parser, source: str) -> Any:
    tree = parser.parse(bytes(source, "utf8"))
    root = tree.root_node
    if _has_error(root):
        raise DecodeError("Error js parsing the source code.")

    def extract_arguments(node) -> dict:
        args: dict = {}
        for child in node.children:
            if child.type == "assignment_expression":
                name = child.children[0].text.decode("utf-8")
                value = child.children[2].text.decode("utf-8")
                if (value.startswith('"') and value.endswith('"')) or (value.startswith("'") and value.endswith("'")):
                    value = value[1:-1]
            elif child.type in ("identifier", "true"):
                name, value = None, child.text.decode("utf-8")
            else:
                continue
            if name in args:
                if not isinstance(args[name], list):
                    args[name] = [args[name]]
                args[name].append(value)
            else:
                args[name] = value
        return args

    if root.type == "program":
        for child in root.children:
            if child.type == "expression_statement":
                for sub in child.children:
                    if sub.type == "call_expression":
                        name = sub.children[0].text.decode("utf8")
                        parameters = extract_arguments(sub.children[1])
                        if any(isinstance(v, list) for v in parameters.values()):
                            raise DecodeError("Error: Multiple arguments with the same name are not supported.")
                        return [{name: parameters}]
    return None
