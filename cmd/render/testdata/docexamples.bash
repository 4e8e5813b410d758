# Read by bash (BASH_ENV) before each shell example of the docs that
# TestShellExamplesInTheDocs runs (docexamples_test.go). The example runs as
# written; these functions stand in for what a user's machine gives and a
# test's cannot:
#   - render serve runs until it is stopped, so a user runs it in a terminal
#     of its own: here it runs in the background, and the example goes on
#     once it serves (it has said where, on stderr). It listens on loopback,
#     on a free port rather than the one the example names (8080 may be
#     taken where the tests run), and curl's URLs on that port are sent to it.
#   - /srv and /run/secrets, the folders of a server's machine that the
#     examples name, are folders of the example's HOME (its scratch copy).
#   - go run ./cmd/render builds ./cmd/render and runs it: the tests' render
#     is that build, of this tree.
# The servers are stopped when the example ends.

docs_servers=()
declare -A docs_ports=()
trap 'for docs_pid in "${docs_servers[@]}"; do kill -9 "$docs_pid" 2>/dev/null || true; done; wait' EXIT
# A command that fails names its line of the example (of the outermost
# call, when it fails in one of the functions below).
set -E
docs_failed() {
  local status=$1 line=$2
  [ ${#FUNCNAME[@]} -gt 1 ] && line=${BASH_LINENO[${#FUNCNAME[@]} - 1]}
  echo "docs: line $line: exit status $status" >&2
}
trap 'docs_failed $? $LINENO' ERR

# docs_map sets docs_args to its arguments, each that names /srv or
# /run/secrets (or --flag=that) put into HOME.
docs_map() {
  docs_args=()
  local a
  for a in "$@"; do
    case $a in
    /srv/* | /run/secrets/*) a=$HOME$a ;;
    --*=/srv/* | --*=/run/secrets/*) a=${a%%=*}=$HOME${a#*=} ;;
    esac
    docs_args+=("$a")
  done
}

render() {
  docs_map "$@"
  if [ "${1-}" = serve ]; then
    docs_serve "${docs_args[@]}"
  else
    command render "${docs_args[@]}"
  fi
}

git() {
  docs_map "$@"
  command git "${docs_args[@]}"
}

curl() {
  local args=() a p
  for a in "$@"; do
    for p in "${!docs_ports[@]}"; do
      a=${a//127.0.0.1:$p/127.0.0.1:${docs_ports[$p]}}
      a=${a//localhost:$p/127.0.0.1:${docs_ports[$p]}}
    done
    args+=("$a")
  done
  command curl "${args[@]}"
}

go() {
  if [ "${1-} ${2-}" = "run ./cmd/render" ]; then
    shift 2
    render "$@"
  else
    command go "$@"
  fi
}

# docs_serve starts render serve "$@" in the background on a free loopback
# port and returns once it serves.
docs_serve() {
  local args=() a addr= next=
  for a in "$@"; do
    if [ -n "$next" ]; then
      addr=$a a=127.0.0.1:0 next=
    fi
    case $a in
    --addr) next=1 ;;
    --addr=*) addr=${a#--addr=} a=--addr=127.0.0.1:0 ;;
    esac
    args+=("$a")
  done
  [ -n "$addr" ] || addr=${PROMPTSMITH_ADDR:-127.0.0.1:8080}
  local fifo
  fifo=$(mktemp -u "${TMPDIR:-/tmp}/docs-serve.XXXXXX")
  mkfifo "$fifo"
  (
    export PROMPTSMITH_ADDR=127.0.0.1:0
    for v in $(compgen -e); do
      case ${!v} in /srv/* | /run/secrets/*) export "$v=$HOME${!v}" ;; esac
    done
    exec render "${args[@]}" 2>"$fifo"
  ) &
  docs_servers+=($!)
  local fd line url=
  exec {fd}<"$fifo"
  rm -f "$fifo"
  while IFS= read -r line <&"$fd"; do
    printf 'render serve: %s\n' "$line" >&2
    case $line in
    *url=http://*) url=${line#*url=} url=${url%% *} ;;
    *'"url":"http://'*) url=${line#*\"url\":\"} url=${url%%\"*} ;;
    *) continue ;;
    esac
    break
  done
  if [ -z "$url" ]; then
    echo "docs: render $* ended without serving" >&2
    return 1
  fi
  cat <&"$fd" | sed 's/^/render serve: /' >&2 &
  exec {fd}<&-
  docs_ports[${addr##*:}]=${url##*:}
}
