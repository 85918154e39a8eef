#!/usr/bin/env python3
"""Compares Sources/AuthenticationServicesStandIn with Apple's real AuthenticationServices (and CryptoKit).

Input: symbol graphs (swift-symbolgraph-extract / -emit-symbol-graph) of the SDK's modules and of the stand-in, as
scripts/check-apple-sdk.sh makes them. For every declaration written in the stand-in it finds the SDK's declaration at
the same path (on the type itself, a superclass, or a protocol the type conforms to, as Swift resolves a member) and
reports each difference:

- missing: the SDK declares nothing there;
- kind: class versus protocol versus struct, property versus method;
- declaration: the Swift signature, optionality included (`Data` is not `Data!`), after removing what callers cannot
  see (access level, `final` on members, a stored `let` versus a get-only `var`, how a type name is qualified);
- availability on the SDK's platform: introduced (where the SDK's is later than the package's minimum), deprecated,
  unavailable.

A few differences are the stand-in's purpose and are listed as accepted, with why; they are not counted. Prints one
line per difference, then `differences: N`; exits 0 when N is 0, 1 when not, 2 when it could not compare.
"""

import argparse
import json
import re
import sys

# The package's minimum versions (Package.swift): an SDK symbol introduced at or before these needs no availability
# in the stand-in, since every caller runs on a later system.
MINIMUM = {"iOS": (16, 0), "macOS": (14, 0)}

# Differences that are the stand-in's purpose. Keyed by the stand-in path; the value says why.
ACCEPTED = {
    "StandInWindow": "stands in for UIWindow (iOS, visionOS) and NSWindow (macOS), which Linux has not",
    "ASPresentationAnchor": "names StandInWindow, the stand-in's UIWindow/NSWindow",
    "ASAuthorizationControllerDelegate.authorizationController(controller:didCompleteWithAuthorization:)":
        "an optional Objective-C requirement in the SDK; required here, so a misspelt delegate method fails to compile "
        "instead of never being called",
    "ASAuthorizationControllerDelegate.authorizationController(controller:didCompleteWithError:)":
        "an optional Objective-C requirement in the SDK; required here, for the same reason",
}

# Members that the SDK's types get from a standard-library conformance (RawRepresentable, OptionSet) rather than
# declare; the stand-in has to write them out.
FROM_STANDARD_CONFORMANCE = {"rawValue"}

# Leading words callers cannot tell apart.
INVISIBLE_WORDS = {"open", "public", "final", "nonisolated", "dynamic", "@objc", "override"}


def load(path):
    try:
        with open(path, encoding="utf-8") as file:
            return json.load(file)
    except (OSError, ValueError) as error:
        sys.exit(f"cannot read {path}: {error}")


class Graph:
    """One or more symbol graphs: symbols by path, relationships, and type names by precise identifier."""

    def __init__(self, graphs):
        self.by_path = {}
        self.by_id = {}
        self.parents = {}  # precise id -> ids of superclasses and protocols
        for graph in graphs:
            for symbol in graph["symbols"]:
                self.by_id[symbol["identifier"]["precise"]] = symbol
                self.by_path.setdefault(".".join(symbol["pathComponents"]), []).append(symbol)
        for graph in graphs:
            for relation in graph["relationships"]:
                if relation["kind"] in ("inheritsFrom", "conformsTo"):
                    self.parents.setdefault(relation["source"], []).append(relation)

    def type_path(self, precise):
        symbol = self.by_id.get(precise)
        return ".".join(symbol["pathComponents"]) if symbol else None

    def ancestors(self, symbol):
        """The type's superclasses and protocols, transitively, nearest first."""
        seen, queue, found = set(), [symbol["identifier"]["precise"]], []
        while queue:
            current = queue.pop(0)
            for relation in self.parents.get(current, []):
                target = relation["target"]
                if target in seen:
                    continue
                seen.add(target)
                found.append(relation)
                queue.append(target)
        return found

    def resolve(self, path):
        """The declarations at `path`, looking through superclasses and protocols for a member."""
        if path in self.by_path:
            return self.by_path[path]
        components = path.split(".")
        if len(components) < 2:
            return []
        owner, member = ".".join(components[:-1]), components[-1]
        for owner_symbol in self.by_path.get(owner, []):
            for relation in self.ancestors(owner_symbol):
                ancestor = self.type_path(relation["target"])
                if ancestor and f"{ancestor}.{member}" in self.by_path:
                    return self.by_path[f"{ancestor}.{member}"]
        return []

    def conforms_to_standard(self, path):
        owner = ".".join(path.split(".")[:-1])
        for owner_symbol in self.by_path.get(owner, []):
            for relation in self.ancestors(owner_symbol):
                if relation.get("targetFallback", "").split(".")[-1] in ("RawRepresentable", "OptionSet"):
                    return True
                target = self.by_id.get(relation["target"])
                if target is None and relation["target"] in ("s:SY", "s:s9OptionSetP"):
                    return True
        # Imported Objective-C string and option enumerations say RawRepresentable in their declaration only.
        return any(s["kind"]["identifier"] == "swift.struct" for s in self.by_path.get(owner, []))


def declaration(symbol):
    """The symbol's declaration as callers see it. Type names are compared by their last component: the SDK writes
    `ASAuthorizationController.RequestOptions` where the stand-in writes `RequestOptions` or `Self` for the same type."""
    owner = symbol["pathComponents"][-2] if len(symbol["pathComponents"]) > 1 else None
    text = "".join(fragment["spelling"] for fragment in symbol["declarationFragments"]).replace("`", "")
    if owner:
        text = re.sub(r"\bSelf\b(?!\.)", owner, text)
    text = re.sub(r"\b(?:[A-Za-z_][A-Za-z0-9_]*\.)+(?=[A-Za-z_])", "", text)
    text = " ".join(text.split())
    # Members of a @MainActor protocol or class inherit the isolation; only the type's own declaration says it.
    if owner:
        text = text.replace("@MainActor ", "")
    tokens = text.split(" ")
    while tokens and tokens[0] in INVISIBLE_WORDS:
        tokens.pop(0)
    text = " ".join(tokens)
    kind = symbol["kind"]["identifier"]
    if kind in ("swift.property", "swift.type.property"):
        # A stored `let` reads like a get-only property; a stored `var` like a settable one.
        if text.startswith("let ") or text.startswith("static let "):
            text = text.replace("let ", "var ", 1) + " { get }"
        elif "{ get" not in text:
            text += " { get set }"
    return text


def version(value):
    return (value.get("major", 0), value.get("minor", 0), value.get("patch", 0)) if value else None


def shown(value):
    return ".".join(str(part) for part in value[:2]) + (f".{value[2]}" if value and value[2] else "") if value else "none"


def availability(symbol, domain):
    """(introduced, deprecated, unavailable) on `domain`; `*` counts as introduced with no version."""
    for entry in symbol.get("availability") or []:
        if entry.get("domain") == domain:
            return (version(entry.get("introduced")), version(entry.get("deprecated")),
                    bool(entry.get("isUnconditionallyUnavailable") or entry.get("obsoleted")))
    return (None, None, False)


def inherited_availability(graph, symbol, domain):
    """The symbol's availability on `domain`, or its enclosing type's when it says nothing (members inherit it)."""
    components = symbol["pathComponents"]
    for length in range(len(components), 0, -1):
        for candidate in graph.by_path.get(".".join(components[:length]), []):
            found = availability(candidate, domain)
            if found != (None, None, False):
                return found
    return (None, None, False)


def compare(sdk, standin, domain, sdk_version):
    differences, accepted = [], []
    minimum = MINIMUM[domain] + (0,)
    newer, absent = 0, 0
    for symbol in standin.by_id.values():
        if "location" not in symbol:
            continue  # synthesized (Hashable, OptionSet defaults): not written in the stand-in
        path = ".".join(symbol["pathComponents"])
        where = f'{symbol["location"]["uri"].split("/")[-1]}:{symbol["location"]["position"]["line"] + 1}'
        if path in ACCEPTED:
            accepted.append(f"{path}: {ACCEPTED[path]}")
            continue
        candidates = sdk.resolve(path)
        if not candidates:
            if symbol["pathComponents"][-1] in FROM_STANDARD_CONFORMANCE and sdk.conforms_to_standard(path):
                continue
            # The stand-in follows the newest SDK: what a later SDK brought, or what this platform lacks, is absent
            # from an older SDK or another platform's, as it should be (the adapter gates it with #if compiler).
            introduced, _, unavailable = inherited_availability(standin, symbol, domain)
            if unavailable:
                absent += 1
                continue
            if introduced and sdk_version and introduced > sdk_version:
                newer += 1
                continue
            differences.append(f"{where}: {path}: the SDK declares nothing there")
            continue
        kind = symbol["kind"]["identifier"]
        mine = declaration(symbol)
        same_kind = [c for c in candidates if c["kind"]["identifier"] == kind]
        if not same_kind:
            differences.append(f'{where}: {path}: a {kind} here, a {candidates[0]["kind"]["identifier"]} in the SDK')
            continue
        theirs = [declaration(c) for c in same_kind]
        if kind in ("swift.class", "swift.struct", "swift.enum", "swift.protocol"):
            # A type's own line: its kind and name are what callers rely on (conformances differ on Linux).
            match = same_kind[0]
        else:
            matches = [c for c, text in zip(same_kind, theirs) if text == mine]
            if not matches:
                differences.append(f"{where}: {path}: stand-in `{mine}`, SDK `{' | '.join(theirs)}`")
                continue
            match = matches[0]
        introduced, deprecated, unavailable = availability(match, domain)
        my_introduced, my_deprecated, my_unavailable = availability(symbol, domain)
        if unavailable != my_unavailable:
            differences.append(f"{where}: {path}: {'unavailable' if unavailable else 'available'} on {domain} in the SDK, "
                               f"{'unavailable' if my_unavailable else 'available'} in the stand-in")
            continue
        if unavailable:
            continue
        needed = introduced if introduced and introduced > minimum else None
        if my_introduced != introduced and (needed or my_introduced):
            if not (my_introduced is None and needed is None):
                differences.append(f"{where}: {path}: introduced in {domain} {shown(introduced)} in the SDK, "
                                   f"{shown(my_introduced)} in the stand-in")
        if deprecated != my_deprecated:
            differences.append(f"{where}: {path}: deprecated in {domain} {shown(deprecated)} in the SDK, "
                               f"{shown(my_deprecated)} in the stand-in")
    if newer:
        accepted.append(f"{newer} declarations introduced after this SDK ({domain} {shown(sdk_version)}) are not in it, as expected")
    if absent:
        accepted.append(f"{absent} declarations unavailable on {domain} are not in its SDK, as expected")
    return differences, accepted


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--platform", choices=["ios", "macos"], required=True)
    parser.add_argument("--sdk-graph", action="append", required=True, help="a symbol graph of the SDK (repeatable)")
    parser.add_argument("--sdk-version", help="the SDK's version (SDKSettings.json), e.g. 15.5")
    parser.add_argument("standin_graph")
    arguments = parser.parse_args()
    domain = {"ios": "iOS", "macos": "macOS"}[arguments.platform]
    sdk = Graph([load(path) for path in arguments.sdk_graph])
    standin = Graph([load(arguments.standin_graph)])
    sdk_version = None
    if arguments.sdk_version:
        parts = [int(part) for part in arguments.sdk_version.split(".")[:3]]
        sdk_version = tuple(parts + [0] * (3 - len(parts)))
    differences, accepted = compare(sdk, standin, domain, sdk_version)
    for line in sorted(differences):
        print(f"difference: {line}")
    for line in sorted(accepted):
        print(f"accepted: {line}")
    print(f"differences: {len(differences)}")
    return 1 if differences else 0


if __name__ == "__main__":
    sys.exit(main())
