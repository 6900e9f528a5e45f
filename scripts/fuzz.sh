#!/usr/bin/env bash
# Fuzzes every decoder that reads outside bytes (page formats, JSON, Link headers, Retry-After,
# timestamps, OPML files) with libFuzzer, each for SECONDS (default 20), seeded from Fixtures/. Exits
# non-zero on the first crash; the crashing input is left in .build/fuzz/ (make it a regression
# test). Usage: bash scripts/fuzz.sh [SECONDS] [TARGET…]
set -euo pipefail
cd "$(dirname "$0")/.."
[ -d /opt/swift/usr/bin ] && export PATH="/opt/swift/usr/bin:$PATH"
seconds="${1:-20}"
shift || true
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(graph jsonfeed linked indexed json link-header retry-after timestamp html mapping opml jq-wire jq-worker markup server-message sse ndjson websocket jetstream nostr newsboat-urls search-query)

out=.build/fuzz
mkdir -p "$out"
# The decoders and what they use: no SQLite, no logging; curl's headers for what the shared
# files import, and jq's library (a C shim, compiled with the sanitizers) for the mapping step,
# which this binary serves as its own jq worker (`LLVMFuzzerInitialize`), as feedcli does.
sources=(
  Sources/FeedCore/Model/JSON/*.swift
  Sources/FeedCore/JQ/*.swift
  Sources/FeedCore/Feeds/{FeedDocument,FeedPage,GraphFeed,JSONFeedKind,LinkedFeed,DefaultFields,IndexedFeed,LinkHeader,FeedMarkup}.swift
  Sources/FeedCore/Feeds/{ExpressionFeed,ExpressionMapping,ItemFilter,FeedTime,SkippedItem,PageItems,ServerMessage}.swift
  Sources/FeedCore/Base/{DetachedThread,Locked}.swift
  Sources/FeedCore/Model/Models/{Entry,FeedItem,FeedKind,FeedFailure,Redaction,Timestamp,StringEdges}.swift
  Sources/FeedCore/Model/Models/{FeedRegistration,FeedExpressions,FeedPresets,URLQuery,TerminalText,Excerpt,OPML,EveryDuration}.swift
  Sources/FeedCore/Model/Models/{MemorySize,URLReference,StreamFormat,ByteCount,NostrFilter,NewsboatURLs}.swift
  Sources/FeedCore/Feeds/Streams/{ServerSentEvents,JSONLines,Jetstream,Nostr,WebSocketMessageReading,StreamSignal}.swift
  Sources/FeedCore/HTTP/{HTTPResponse,HTTPHeaders,RetryAfter,WebSocketFraming,Digest}.swift
  Sources/FeedCore/Rendering/{HTMLText,SearchExcerpt}.swift
  Sources/FeedCore/Model/Search/*.swift Sources/FeedCore/Postgres/PostgresSearch.swift
  Fuzz/FuzzTargets.swift
)
# The files come from several of FeedCore's targets and are compiled here as one module; each
# target they import is an empty module of that name, so that their `import`s resolve.
stubs=(FeedBase FeedModel FeedReactive FeedHTTP FeedJQ FeedKinds FeedRendering)
binary="$out/feedcli-fuzz"
if [ ! -x "$binary" ] || [ -n "$(find "${sources[@]}" Sources/CJQ Sources/CWorkerSandbox Sources/CDynamicLibrary -newer "$binary" 2>/dev/null)" ]; then
  echo "fuzz: building $binary"
  cflags=(-c -O1 -g -fsanitize=fuzzer-no-link,address -I Sources/CJQ/include -I Sources/CWorkerSandbox/include -I Sources/CDynamicLibrary/include)
  clang "${cflags[@]}" Sources/CJQ/cjq.c -o "$out/cjq.o"
  clang "${cflags[@]}" Sources/CWorkerSandbox/confine.c -o "$out/confine.o"
  clang "${cflags[@]}" Sources/CWorkerSandbox/worker_process.c -o "$out/worker_process.o"
  clang "${cflags[@]}" Sources/CDynamicLibrary/dynamic_library.c -o "$out/dynamic_library.o"
  mkdir -p "$out/stubs"
  : > "$out/stubs/empty.swift"
  for module in "${stubs[@]}"; do
    swiftc -emit-module -parse-as-library -swift-version 6 -package-name feedcli -module-name "$module" \
      "$out/stubs/empty.swift" -emit-module-path "$out/stubs/$module.swiftmodule"
  done
  # The linker warns about every ASan helper symbol; keep its output unless the build fails.
  if ! swiftc -sanitize=fuzzer,address -parse-as-library -swift-version 6 -O -g -module-name FeedFuzz \
      -package-name feedcli -I "$out/stubs" -I Sources/CCurl -I Sources/CJQ/include -I Sources/CWorkerSandbox/include -I Sources/CDynamicLibrary/include \
      "${sources[@]}" "$out/cjq.o" "$out/confine.o" "$out/worker_process.o" "$out/dynamic_library.o" -ldl -lcrypto -o "$binary" >"$out/build.log" 2>&1; then
    grep -v "Cannot export local symbol" "$out/build.log" >&2
    exit 1
  fi
fi

seed() {  # seed TARGET: a corpus folder from the fixtures
  local dir="$out/corpus/$1"
  mkdir -p "$dir"
  case "$1" in
    graph) cp Fixtures/graph/*.json "$dir/" ;;
    jsonfeed) cp Fixtures/jsonfeed/*.json "$dir/" ;;
    linked) cp Fixtures/linked/*.json "$dir/" ;;
    indexed) python3 -c '
import json, sys
for i, post in enumerate(json.load(open("Fixtures/posts/posts.json"))[:10]):
    open(f"{sys.argv[1]}/post{i}.json", "w").write(json.dumps(post, indent=2))' "$dir" ;;
    json) for f in Fixtures/{jsonfeed,graph,linked}/*.json; do cp "$f" "$dir/$(basename "$(dirname "$f")")-$(basename "$f")"; done ;;
    link-header)
      printf '%s' '<https://api.example/issues?page=3>; rel="next", </issues?page=1>; rel="first"' > "$dir/github"
      printf '%s' '<https://m.example/api/v1/timelines/home?max_id=109>; rel="next"; title="a, b; c"' > "$dir/mastodon" ;;
    retry-after)
      printf '120' > "$dir/seconds"; printf 'Sun, 06 Nov 1994 08:49:37 GMT' > "$dir/imf"
      printf 'Sunday, 06-Nov-94 08:49:37 GMT' > "$dir/rfc850"; printf 'Sun Nov  6 08:49:37 1994' > "$dir/asctime" ;;
    html) python3 -c '
import json, sys
for i, item in enumerate(json.load(open("Fixtures/jsonfeed/DaringFireball.json"))["items"][:8]):
    open(f"{sys.argv[1]}/item{i}.html", "w").write(item.get("content_html", ""))' "$dir" ;;
    timestamp)
      printf '2026-11-01T10:00:00+0000' > "$dir/graph"; printf '2026-11-01T10:00:00.5+05:30' > "$dir/rfc3339" ;;
    search-query)  # what people type, and what engines read as operators
      printf '%s' 'swift -rust "a phrase" concur* OR café' > "$dir/words"
      printf '%s' 'title:東京 author:"Zoë" feed:b 🎉 NEAR( AND ^ * : \' > "$dir/signs" ;;
    newsboat-urls)  # a urls file as newsboat's documentation shows one
      printf '%s\n' '# feeds' 'https://daringfireball.net/feeds/json "tech" "~Daring Fireball"' \
        '"query:Unread:unread = \"yes\""' 'exec:~/bin/feed.sh' > "$dir/urls" ;;
    opml)
      printf '%s' '<?xml version="1.0"?><opml version="2.0"><head><title>a &amp; b</title></head><body><outline text="T"><outline type="rss" text="Daring Fireball" xmlUrl="https://daringfireball.net/feeds/json?a=1&amp;b=2" feedcliKind="jsonfeed"/></outline></body></opml>' > "$dir/nested"
      printf '%s' "<!-- c --><opml><body><outline text='A&#233;&#x1F600;' xmlUrl='https://e.x/a'></outline><![CDATA[ x ]]></body></opml>" > "$dir/quotes" ;;
    jq-wire)  # replies as a worker writes them: a check, a filter, a failure
      printf '\001\000' > "$dir/checked"; printf '\003\002\000\000\000\001\000' > "$dir/filtered"
      printf '\004\001\000\000\000\000\000\000\000\002\000\000\000no' > "$dir/failed" ;;
    server-message)  # error bodies APIs send with a 4xx
      printf '%s' '{"error":"InvalidRequest","message":"Profile not found"}' > "$dir/bluesky"
      printf '%s' '{"errors":[{"message":"Bad credentials"}]}' > "$dir/list"; printf '%s' 'Not Found' > "$dir/text" ;;
    sse)  # the first byte picks the cut; then the real captures and the WPT cases' shapes
      for f in Fixtures/streams/*.sse; do { printf 'A'; cat "$f"; } > "$dir/$(basename "$f")"; done
      printf '%s' $'\x07\xef\xbb\xbfdata:1\r\n\r\nid: 7\nretry: 100\nevent: x\ndata: a\ndata: b\n\n:c\rdata:\n\n' > "$dir/rules" ;;
    ndjson)
      printf '%s' $'\x05{"id":1}\r\n\n{"id":2}\n{"id":"3"' > "$dir/lines" ;;
    websocket)  # cut, limit/64, then frames: a text in two fragments with a ping between, a close
      printf '\x09\x02\x01\x03{"a\x89\x02hi\x80\x03":1}\x88\x05\x03\xe8bye' > "$dir/fragments"
      printf '\x03\x01\x82\x7e\x01\x00' > "$dir/long"; head -c 256 /dev/zero >> "$dir/long"
      printf '\x00\x10\x81\x82\x01\x02\x03\x04ab' > "$dir/masked" ;;
    jetstream)  # each real event of Jetstream's capture, one an input
      n=0; while IFS= read -r line; do n=$((n + 1)); printf '%s' "$line" > "$dir/event-$n"; done < Fixtures/streams/jetstream-v1.jsonl ;;
    nostr)  # real events as a relay sends them, and its other messages
      n=0; head -n 40 Fixtures/streams/nostr-events.jsonl | while IFS= read -r line; do n=$((n + 1)); printf '["EVENT","feedcli",%s]' "$line" > "$dir/event-$n"; done
      printf '%s' '["EOSE","feedcli"]' > "$dir/eose"; printf '%s' '["CLOSED","feedcli","auth-required: x"]' > "$dir/closed"
      printf '%s' '["NOTICE","slow down"]' > "$dir/notice" ;;
    markup)  # pages and documents a feed URL may answer with
      printf '%s' '<!DOCTYPE html><html><head><link rel="alternate" type="application/feed+json" href="/feed.json"><link rel=alternate type=application/feed+json href=x></head></html>' > "$dir/page"
      printf '%s' '<?xml version="1.0"?><rss version="2.0"><channel/></rss>' > "$dir/rss"
      printf '%s' '<feed xmlns="http://www.w3.org/2005/Atom"></feed>' > "$dir/atom" ;;
    jq-worker)  # an expression, a newline, a page
      printf '%s\n%s' '.posts[]' '{"posts":[{"id":1,"t":5},{"id":"\ud800"}]}' > "$dir/items"
      printf '%s\n%s' '.[]|.t|todate' '[{"t":1e17}]' > "$dir/crash"
      printf '%s\n%s' '..|numbers' '[1,[2,{"a":3}]]' > "$dir/recurse" ;;
    mapping)  # the first byte picks the mapping (FuzzTargets.swift)
      for f in Fixtures/apis/*.json Fixtures/linked/*.json; do
        [ -f "$f" ] || continue
        for m in 0 1 2 3 4 5 6 7 8 9; do { printf "\\$(printf %o $((48 + m)))"; cat "$f"; } > "$dir/$m-$(basename "$f")"; done
      done ;;
  esac
}

for target in "${targets[@]}"; do
  seed "$target"
  echo "fuzz: $target for ${seconds}s"
  # jq 1.6's own parser leaks a few KiB on some inputs (jv_mem_realloc, inside libjq): not
  # feedcli's memory, and harmless in a short run, so leaks are not counted for the mapping step.
  leaks=1; case "$target" in mapping|jq-worker) leaks=0 ;; esac
  (cd "$out" && ASAN_OPTIONS="detect_leaks=$leaks" FUZZ_TARGET="$target" ./feedcli-fuzz "corpus/$target" -max_total_time="$seconds" -detect_leaks=$leaks \
      -max_len=65536 -timeout=10 -rss_limit_mb=2048 -print_final_stats=0 -artifact_prefix="crash-$target-" 2>&1 \
    | grep -E "^(#[0-9]+ +DONE|==|SUMMARY|Done|.*ERROR|.*Fatal)" || true)
  if ls "$out"/crash-"$target"-* >/dev/null 2>&1; then
    echo "fuzz: $target crashed; inputs in $out:" >&2
    ls "$out"/crash-"$target"-* >&2
    exit 1
  fi
done
echo "fuzz: ${#targets[@]} targets ran clean for ${seconds}s each"
