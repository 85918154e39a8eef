#!/usr/bin/env bash
# Type-checks what an iOS or macOS app compiles of this package against Apple's real SDK, with the Linux toolchain, and
# compares the AuthenticationServices stand-in with that SDK. Nothing is linked and nothing runs: it answers "does this
# compile in Xcode?" on a machine without Xcode. docs/ios.md, "Checking the Apple build on Linux", says how to use it.
#
#   scripts/check-apple-sdk.sh --sdk PATH [--sdk PATH …] [--as-swift VERSION] [--work DIR] [--no-compare]
#
# For each SDK (an iPhoneOS*.sdk or MacOSX*.sdk folder), in dependency order:
#   PasskeyCBOR, PasskeyAuthenticatorData, PasskeyWire, PasskeyAPI, PasskeyClient, PasskeyAuthenticationServices (-D PASSKEY_APPLE_ADAPTER): their modules are emitted
#   (also when they have errors, so one module's error does not hide the next one's), then every file is type-checked
#   with its function bodies; on iPhoneOS, Examples/PasskeyExample and Examples/ConnectExample, each twice: in Swift 6
#   mode, and with the settings of a new Xcode 26 app target (Swift 5, main-actor default isolation, approachable
#   concurrency); and each Swift sample of docs/ios.md and docs/migrating/*.md that is a whole file (starts with an
#   import), with the same two settings.
# Then, unless --no-compare: every declaration of Sources/AuthenticationServicesStandIn is compared with the SDK's
# AuthenticationServices (symbol graphs of both): kind, declaration (optionality, `Data!`), and availability.
#
# `#if compiler(>=X)` gates the symbols an SDK brought (CredentialSignals.swift). The Linux compiler is newer than the
# one each SDK shipped with, so the sources are type-checked from a copy in which every `compiler(>=X)` condition is
# decided for the Swift of the Xcode that shipped the SDK (from the SDK's SDKSettings.json, or --as-swift). Any other
# form of `compiler(...)` stops the script.
#
# Exit status: 0 with no error, no warning and no stand-in difference; 1 otherwise; 2 for a usage or set-up problem.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

usage() { sed -n '5,6p' "$0" | sed 's/^# //' >&2; exit 2; }
sdks=()
as_swift=""
work="$root/.build-apple-sdk"
compare=1
while [ $# -gt 0 ]; do
    case "$1" in
        --sdk) [ $# -ge 2 ] || usage; sdks+=("$2"); shift 2 ;;
        --as-swift) [ $# -ge 2 ] || usage; as_swift="$2"; shift 2 ;;
        --work) [ $# -ge 2 ] || usage; work="$2"; shift 2 ;;
        --no-compare) compare=0; shift ;;
        -h|--help) sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "unknown argument: $1" >&2; usage ;;
    esac
done
[ ${#sdks[@]} -gt 0 ] || { echo "give at least one --sdk PATH (an iPhoneOS*.sdk or MacOSX*.sdk folder)" >&2; usage; }
command -v swiftc >/dev/null || { echo "swiftc is not on PATH" >&2; exit 2; }
command -v python3 >/dev/null || { echo "python3 is not on PATH (the stand-in comparison and the source copy use it)" >&2; exit 2; }
toolchain_swift=$(dirname "$(dirname "$(readlink -f "$(command -v swiftc)")")")/lib/swift
[ -d "$toolchain_swift/clang" ] || { echo "cannot find the toolchain's lib/swift (looked in $toolchain_swift)" >&2; exit 2; }

# The package's settings for these targets (Package.swift: `strict`).
features=(-enable-upcoming-feature ExistentialAny -enable-upcoming-feature InternalImportsByDefault)
# A new app target in Xcode 26: Swift 5 mode, Default Actor Isolation = MainActor, Approachable Concurrency = Yes.
xcode26_app=(-swift-version 5 -default-isolation MainActor
    -enable-upcoming-feature DisableOutwardActorInference -enable-upcoming-feature GlobalActorIsolatedTypesUsability
    -enable-upcoming-feature InferIsolatedConformances -enable-upcoming-feature InferSendableFromCaptures
    -enable-upcoming-feature NonisolatedNonsendingByDefault)

total_errors=0
total_warnings=0
total_differences=0
summary=()

# The Swift that shipped with an SDK's Xcode: what `#if compiler(>=X)` means for the people who build with it.
swift_for_sdk() {
    case "$1" in
        26.0*) echo 6.2 ;;
        26.1*) echo 6.2.1 ;;
        26.2*) echo 6.2.3 ;;
        15.4*|18.4*) echo 6.1 ;;
        15.5*|15.6*|18.5*|18.6*) echo 6.1.2 ;;
        15.*|18.*) echo 6.0 ;;
        *) swiftc --version 2>/dev/null | sed -n 's/.*Swift version \([0-9.]*\).*/\1/p' | head -1 ;;
    esac
}

# A folder standing in for the toolchain's resource directory, for an Apple target: the toolchain's Clang headers and
# tools, the SDK's shims instead of the Linux ones (no Linux dispatch/os module maps), no API notes of its own.
make_resource_dir() {
    local sdk=$1 res=$2
    rm -rf "$res"
    mkdir -p "$res/apinotes"
    for d in clang swiftToCxx embedded migrator host; do
        [ -e "$toolchain_swift/$d" ] && ln -s "$toolchain_swift/$d" "$res/$d"
    done
    for m in SwiftShims _SwiftConcurrencyShims SwiftOverlayShims _SynchronizationShims _SwiftOSOverlayShims _SwiftXPCOverlayShims; do
        echo "extern module $m \"$sdk/usr/lib/swift/shims/module.modulemap\""
    done >"$res/module.modulemap"
}

# Copies of macOS SDKs often lose the frameworks' symbolic links (Versions/Current, and Headers, Modules and the .tbd
# at the framework's top), without which no framework is found. Recreated where missing; nothing else is changed.
repair_framework_links() {
    local frameworks=$1/System/Library/Frameworks repaired=0
    [ -d "$frameworks" ] || return 0
    # Umbrella frameworks (CoreServices, ApplicationServices, Carbon) hold frameworks of their own, in Versions/A/Frameworks.
    local all
    mapfile -t all < <(find "$frameworks" -type d -name '*.framework' | sort)
    for fw in "${all[@]}"; do
        [ -d "$fw/Versions" ] || continue
        if [ ! -e "$fw/Versions/Current" ]; then
            local version
            version=$(ls "$fw/Versions" | grep -v '^Current$' | head -1)
            [ -n "$version" ] || continue
            ln -s "$version" "$fw/Versions/Current"
            repaired=$((repaired + 1))
        fi
        for entry in "$fw"/Versions/Current/*; do
            local name
            name=$(basename "$entry")
            [ -e "$fw/$name" ] || ln -s "Versions/Current/$name" "$fw/$name"
        done
    done
    [ $repaired -eq 0 ] || echo "   recreated Versions/Current and the top-level links in $repaired frameworks of $1"
}

# Copies the sources to check, deciding each `compiler(>=X)` for the given Swift version.
copy_sources() {
    local dest=$1 swift=$2
    rm -rf "$dest"
    mkdir -p "$dest"
    python3 - "$root" "$dest" "$swift" <<'PY'
import os, re, sys
root, dest, swift = sys.argv[1:4]
have = tuple(int(p) for p in swift.split("."))
pattern = re.compile(r"compiler\(\s*>=\s*([0-9]+(?:\.[0-9]+)*)\s*\)")
folders = ["Sources/PasskeyCBOR", "Sources/PasskeyAuthenticatorData", "Sources/PasskeyWire", "Sources/PasskeyAPI", "Sources/PasskeyClient", "Sources/PasskeyAuthenticationServices", "Examples/PasskeyExample/PasskeyExample", "Examples/ConnectExample/ConnectExample"]
for folder in folders:
    for directory, _, files in os.walk(os.path.join(root, folder)):
        for name in files:
            if not name.endswith(".swift"):
                continue
            source = os.path.join(directory, name)
            text = open(source, encoding="utf-8").read()
            def decide(match):
                wanted = tuple(int(p) for p in match.group(1).split("."))
                width = max(len(wanted), len(have))
                pad = lambda v: v + (0,) * (width - len(v))
                # A condition that holds for the simulated compiler becomes one that always holds, and the reverse.
                return "compiler(>=1)" if pad(have) >= pad(wanted) else "compiler(>=999)"
            rewritten = pattern.sub(decide, text)
            for line_number, line in enumerate(rewritten.splitlines(), 1):
                stripped = line.strip()
                if stripped.startswith("#") and "compiler(" in stripped and not re.search(r"compiler\(>=(1|999)\)", stripped):
                    sys.exit(f"{source}:{line_number}: only `compiler(>=X)` can be decided for another Swift: {stripped}")
            target = os.path.join(dest, os.path.relpath(source, root))
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with open(target, "w", encoding="utf-8") as out:
                out.write(rewritten)
PY
}

# Runs one compiler step, prints its diagnostics with paths into the repository, and counts them.
step_errors=0
step_warnings=0
run_step() {
    local label=$1 src=$2
    shift 2
    local log
    log=$(mktemp)
    "$@" >"$log" 2>&1
    local status=$?
    # Paths into the copy become paths into the repository, so they can be clicked and fixed.
    sed -i "s#$src/##g" "$log"
    local errors warnings
    errors=$(grep -cE '^[^ ].*:[0-9]+:[0-9]+: error: |^error: ' "$log")
    warnings=$(grep -cE '^[^ ].*:[0-9]+:[0-9]+: warning: |^warning: ' "$log")
    if [ "$status" -ne 0 ] && [ "$errors" -eq 0 ]; then errors=1; fi
    step_errors=$((step_errors + errors))
    step_warnings=$((step_warnings + warnings))
    if [ "$errors" -gt 0 ] || [ "$warnings" -gt 0 ]; then
        grep -E ': (error|warning): |^(error|warning): ' "$log" | sed 's/^/      /'
    fi
    printf '   %-58s %d errors, %d warnings\n' "$label" "$errors" "$warnings"
    rm -f "$log"
}

for sdk_arg in "${sdks[@]}"; do
    sdk=$(cd "$sdk_arg" 2>/dev/null && pwd) || { echo "no SDK folder at $sdk_arg" >&2; exit 2; }
    [ -f "$sdk/SDKSettings.json" ] || { echo "$sdk has no SDKSettings.json: not an SDK folder" >&2; exit 2; }
    read -r canonical sdk_version < <(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["CanonicalName"], d["Version"])' "$sdk/SDKSettings.json")
    case "$canonical" in
        iphoneos*) platform=ios; target=arm64e-apple-ios16.0; example_target=arm64e-apple-ios17.0 ;;
        macosx*) platform=macos; target=arm64e-apple-macos14.0; example_target="" ;;
        *) echo "$sdk: $canonical is not an iPhoneOS or macOS SDK" >&2; exit 2 ;;
    esac
    swift=${as_swift:-$(swift_for_sdk "$sdk_version")}
    echo "== $canonical ($sdk), target $target, compiler(>=X) decided for Swift $swift"
    repair_framework_links "$sdk"

    dir="$work/$canonical"
    res="$dir/resource-dir"
    mods="$dir/modules"
    src="$dir/sources"
    mkdir -p "$dir/module-cache"
    rm -rf "$mods" && mkdir -p "$mods"
    make_resource_dir "$sdk" "$res"
    copy_sources "$src" "$swift" || exit 2

    # -wmo: one compiler process per step instead of one per file, each of which would load the SDK's modules again.
    common=(-wmo -sdk "$sdk" -resource-dir "$res" -module-cache-path "$dir/module-cache" -I "$mods" -package-name passkey
        -Xfrontend -experimental-allow-module-with-compiler-errors)
    files() { find "$src/$1" -name '*.swift' | sort; }
    step_errors=0
    step_warnings=0
    for module in PasskeyCBOR PasskeyAuthenticatorData PasskeyWire PasskeyAPI PasskeyClient PasskeyAuthenticationServices; do
        defines=()
        [ "$module" = PasskeyAuthenticationServices ] && defines=(-D PASSKEY_APPLE_ADAPTER)
        mapfile -t inputs < <(files "Sources/$module")
        # The module first (declarations only: bodies are the next step's), so the next module can import it.
        run_step "$module (module interface)" "$src" swiftc -emit-module -emit-module-path "$mods/$module.swiftmodule" \
            -module-name "$module" -target "$target" -swift-version 6 "${features[@]}" "${defines[@]}" "${common[@]}" \
            -Xfrontend -experimental-skip-all-function-bodies "${inputs[@]}"
        run_step "$module (every function body)" "$src" swiftc -typecheck -module-name "$module" -target "$target" \
            -swift-version 6 "${features[@]}" "${defines[@]}" "${common[@]}" "${inputs[@]}"
    done
    if [ -n "$example_target" ]; then
        for example in PasskeyExample ConnectExample; do
            mapfile -t inputs < <(files "Examples/$example/$example")
            run_step "$example (Swift 6)" "$src" swiftc -typecheck -module-name "$example" -parse-as-library \
                -target "$example_target" -swift-version 6 "${common[@]}" "${inputs[@]}"
            run_step "$example (a new Xcode 26 app's settings)" "$src" swiftc -typecheck -module-name "$example" \
                -parse-as-library -target "$example_target" "${xcode26_app[@]}" "${common[@]}" "${inputs[@]}"
        done
        # The Swift samples of docs/ios.md and the migration guides that are whole files (they start with an import),
        # each on its own: teams paste them, so they must compile as they stand.
        samples="$src/docs-samples"
        rm -rf "$samples" && mkdir -p "$samples"
        python3 - "$root" "$samples" <<'PY'
import glob, os, re, sys
root, out = sys.argv[1], sys.argv[2]
for path in ["docs/ios.md"] + sorted(os.path.relpath(p, root) for p in glob.glob(f"{root}/docs/migrating/*.md")):
    text = open(f"{root}/{path}").read()
    stem = path[len("docs/"):-len(".md")].replace("/", "__")
    for number, block in enumerate(re.findall(r"^```swift\n(.*?)^```", text, re.S | re.M), 1):
        if block.startswith("import "):
            open(f"{out}/{stem}-sample{number}.swift", "w").write(block)
PY
        for sample in "$samples"/*.swift; do
            [ -e "$sample" ] || continue
            name=$(basename "$sample" .swift)
            document=${name%-sample*}
            run_step "docs/${document//__//}.md sample${name##*-sample} (Swift 6)" "$src" swiftc -typecheck \
                -module-name DocsSample -parse-as-library -target "$example_target" -swift-version 6 "${common[@]}" "$sample"
            run_step "docs/${document//__//}.md sample${name##*-sample} (a new Xcode 26 app's settings)" "$src" swiftc -typecheck \
                -module-name DocsSample -parse-as-library -target "$example_target" "${xcode26_app[@]}" "${common[@]}" "$sample"
        done
    fi
    total_errors=$((total_errors + step_errors))
    total_warnings=$((total_warnings + step_warnings))
    line="$canonical: $step_errors errors, $step_warnings warnings"

    if [ $compare -eq 1 ]; then
        echo "   comparing AuthenticationServicesStandIn with the SDK's AuthenticationServices"
        graphs="$dir/symbol-graphs"
        rm -rf "$graphs" && mkdir -p "$graphs/sdk" "$graphs/standin"
        # CryptoKit too: the stand-in declares its SymmetricKey (PRF outputs).
        for sdk_module in AuthenticationServices CryptoKit; do
            if ! swift-symbolgraph-extract -module-name "$sdk_module" -target "$target" -sdk "$sdk" -resource-dir "$res" \
                -module-cache-path "$dir/module-cache" -output-dir "$graphs/sdk" -minimum-access-level public >"$graphs/sdk.log" 2>&1; then
                sed 's/^/      /' "$graphs/sdk.log"
                echo "   could not read the SDK's $sdk_module" >&2
                exit 2
            fi
        done
        # The stand-in, for Linux, as CI builds it.
        if ! swiftc -emit-module -emit-module-path "$graphs/standin/AuthenticationServicesStandIn.swiftmodule" \
            -module-name AuthenticationServicesStandIn -swift-version 6 "${features[@]}" -emit-symbol-graph \
            -emit-symbol-graph-dir "$graphs/standin" -module-cache-path "$dir/module-cache" \
            Sources/AuthenticationServicesStandIn/*.swift >"$graphs/standin.log" 2>&1; then
            sed 's/^/      /' "$graphs/standin.log"
            echo "   could not build the stand-in's symbol graph" >&2
            exit 2
        fi
        report=$(python3 scripts/compare-standin.py --platform "$platform" --sdk-version "$sdk_version" --sdk-graph "$graphs/sdk/AuthenticationServices.symbols.json" \
            --sdk-graph "$graphs/sdk/CryptoKit.symbols.json" "$graphs/standin/AuthenticationServicesStandIn.symbols.json")
        [ $? -le 1 ] || { echo "   the comparison failed" >&2; exit 2; }
        echo "$report" | sed 's/^/      /'
        differences=$(echo "$report" | sed -n 's/^differences: \([0-9]*\)$/\1/p')
        [ -n "$differences" ] || { echo "   the comparison printed no count" >&2; exit 2; }
        total_differences=$((total_differences + differences))
        line="$line, $differences stand-in differences"
    fi
    summary+=("$line")
done

echo "== summary"
for line in "${summary[@]}"; do echo "   $line"; done
[ $total_errors -eq 0 ] && [ $total_warnings -eq 0 ] && [ $total_differences -eq 0 ]
