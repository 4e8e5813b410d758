package funcs

import (
	"strings"
	"testing"
	"text/template"
	"unicode/utf8"

	"github.com/promptsmith/promptsmith/internal/input"
)

func TestTruncateNeverSplitsACharacter(t *testing.T) {
	cases := []struct {
		s    string
		n    int
		want string
	}{
		{"hello", 3, "hel"},
		{"hello", 10, "hello"},
		{"héllo", 2, "hé"},
		{"日本語", 2, "日本"},
		{"🎉🎉🎉", 1, "🎉"},
		{"abc", 0, ""},
		{"abc", -1, ""},
		{"", 5, ""},
	}
	for _, c := range cases {
		got := cut(c.s, c.n)
		if got != c.want || !utf8.ValidString(got) {
			t.Errorf("truncate %d %q = %q, want %q", c.n, c.s, got, c.want)
		}
	}
	// A multi-byte character straddling byte 2000 of the input.
	s := strings.Repeat("a", 1999) + "€" + "tail"
	got := cut(s, 2000)
	if !utf8.ValidString(got) || utf8.RuneCountInString(got) != 2000 || !strings.HasSuffix(got, "€") {
		t.Errorf("cut at 2000 gave %d characters ending %q", utf8.RuneCountInString(got), got[len(got)-4:])
	}
	if got := trunc(-2, "日本語"); got != "本語" {
		t.Errorf("trunc -2 = %q", got)
	}
	if got := substr(1, 3, "日本語x"); got != "本語" {
		t.Errorf("substr = %q", got)
	}
}

func TestListFunctions(t *testing.T) {
	list := []any{
		map[string]any{"id": "a", "p": int64(2), "s": "done"},
		map[string]any{"id": "b", "p": int64(1), "s": "open"},
		map[string]any{"id": "c", "p": int64(2), "s": "open"},
		map[string]any{"id": "d", "s": "blocked"},
	}
	ids := func(l []any) string {
		var out []string
		for _, e := range l {
			out = append(out, e.(map[string]any)["id"].(string))
		}
		return strings.Join(out, "")
	}
	if got, _ := take(2, list); ids(got) != "ab" {
		t.Errorf("take 2: %s", ids(got))
	}
	if got, _ := take(9, list); ids(got) != "abcd" {
		t.Errorf("take 9: %s", ids(got))
	}
	if got, _ := takeLast(3, list); ids(got) != "bcd" {
		t.Errorf("takeLast 3: %s", ids(got))
	}
	if got, _ := takeLast(0, list); len(got) != 0 {
		t.Errorf("takeLast 0: %v", got)
	}
	if got, _ := sortBy("p", list, false); ids(got) != "bacd" {
		t.Errorf("sortBy p (stable, missing last): %s", ids(got))
	}
	if got, _ := sortBy("p", list, true); ids(got) != "dacb" {
		t.Errorf("sortByDesc p: %s", ids(got))
	}
	if got, _ := where("s", "open", list); ids(got) != "bc" {
		t.Errorf("where: %s", ids(got))
	}
	if got, _ := whereNot("s", "open", list); ids(got) != "ad" {
		t.Errorf("whereNot: %s", ids(got))
	}
	if got, _ := whereIn("s", []any{"done", "blocked"}, list); ids(got) != "ad" {
		t.Errorf("whereIn: %s", ids(got))
	}
	if got, _ := find("id", "c", list); got.(map[string]any)["p"] != int64(2) {
		t.Errorf("find: %v", got)
	}
	if got, _ := find("id", "z", list); got != nil {
		t.Errorf("find missing: %v", got)
	}
	if _, err := take(1, "not a list"); err == nil {
		t.Error("take on a string succeeded")
	}
}

func TestSortByTimes(t *testing.T) {
	at := func(id, ts string) any { return map[string]any{"id": id, "at": ts} }
	ids := func(l []any) string {
		var out []string
		for _, e := range l {
			out = append(out, e.(map[string]any)["id"].(string))
		}
		return strings.Join(out, "")
	}
	// As text these sort b, a, c, d: the fraction, the offset and the
	// missing zone would all be misread.
	list := []any{
		at("a", "2026-03-01T10:00:00.5Z"),
		at("b", "2026-03-01T10:00:00Z"),
		at("c", "2026-03-01T11:30:00+02:00"), // 09:30Z, the oldest
		at("d", "2026-03-01T10:00:00.500Z"),  // the same time as a
		map[string]any{"id": "e"},            // no time: last
	}
	if got, _ := sortBy("at", list, false); ids(got) != "cbade" {
		t.Errorf("sortBy times: %s", ids(got))
	}
	if got, _ := sortBy("at", list, true); ids(got) != "eadbc" {
		t.Errorf("sortByDesc times (equal times keep their order): %s", ids(got))
	}
	// One value that is not a time: everything sorts as text.
	mixed := append([]any{at("x", "later")}, list[:2]...)
	if got, _ := sortBy("at", mixed, false); ids(got) != "abx" {
		t.Errorf("sortBy mixed: %s", ids(got))
	}
}

func TestRelativeTimes(t *testing.T) {
	now := "2026-11-23T12:00:00Z"
	cases := []struct {
		fn   func(a, b any) (string, error)
		t    string
		want string
	}{
		{relativeTime, "2026-11-23T11:59:30Z", "30s ago"},
		{relativeTime, "2026-11-23T11:55:00Z", "5m ago"},
		{relativeTime, "2026-11-23T09:40:00Z", "2h 20m ago"},
		{relativeTime, "2026-11-20T10:00:00Z", "3d 2h ago"},
		{relativeTime, "2026-11-23T12:00:00Z", "just now"},
		{relativeTime, "2026-11-23T15:00:00Z", "in 3h"},
		{relativeTime, "2026-11-23T12:00:45+00:00", "in 45s"},
		{relativeTime, "2026-11-23T13:00:00+01:00", "just now"},
		{age, "2026-11-23T11:58:00Z", "2m"},
		{age, "2026-11-23T12:02:00Z", "2m"},
	}
	for _, c := range cases {
		got, err := c.fn(c.t, now)
		if err != nil || got != c.want {
			t.Errorf("%s vs now: %q %v, want %q", c.t, got, err, c.want)
		}
	}
	if _, err := relativeTime("yesterday", now); err == nil || !strings.Contains(err.Error(), "ISO 8601") {
		t.Errorf("a bad time: %v", err)
	}
	if got, _ := isoTime("2026-11-23T13:00:00+01:00"); got != "2026-11-23T12:00:00Z" {
		t.Errorf("isoTime: %s", got)
	}
	if got, _ := formatDate("Jan 2, 15:04", "2026-11-23T13:00:00+01:00"); got != "Nov 23, 13:00" {
		t.Errorf("date keeps the time's own offset: %s", got)
	}
}

func TestTextFunctions(t *testing.T) {
	cases := map[string][2]string{
		"frontmatter":         {"---\nname: x\n---\n\nBody\n", "Body\n"},
		"CRLF frontmatter":    {"---\r\nname: x\r\n---\r\nBody", "Body"},
		"no frontmatter":      {"# Title\n---\n", "# Title\n---\n"},
		"unclosed":            {"---\nname: x\nBody\n", "---\nname: x\nBody\n"},
		"empty frontmatter":   {"---\n---\nBody", "Body"},
		"frontmatter to eof":  {"---\na: 1\n---", ""},
		"dashes inside value": {"---\na: ---x\n---\nB", "B"},
	}
	for name, c := range cases {
		if got := stripFrontmatter(c[0]); got != c[1] {
			t.Errorf("%s: %q, want %q", name, got, c[1])
		}
	}
	if got := Fence("a ``` b ```` c"); got != "`````" {
		t.Errorf("fence: %q", got)
	}
	if got := Fence("plain"); got != "```" {
		t.Errorf("fence: %q", got)
	}
	if got := mdCell("a | b\nc"); got != `a \| b c` {
		t.Errorf("mdCell: %q", got)
	}
}

func TestNondeterministicFunctionsAreGone(t *testing.T) {
	f := Map(&Env{})
	for _, name := range []string{"now", "randAlphaNum", "uuidv4", "env", "expandenv", "shuffle", "getHostByName", "bcrypt", "genPrivateKey"} {
		if _, ok := f[name]; ok {
			t.Errorf("%s is available to templates", name)
		}
	}
	for _, name := range []string{"upper", "trim", "dict", "list", "hasKey", "get", "default", "indent", "nindent", "until", "plural"} {
		if _, ok := f[name]; !ok {
			t.Errorf("sprig's %s is missing", name)
		}
	}
}

func TestJSONFunctions(t *testing.T) {
	d, err := input.Decode(input.Input{Name: "t", Data: []byte(`{"p": {"event": "created", "id": "<b>&", "n": 2, "f": 1.5, "l": [true, null], "e": {}}}`)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Release()
	env := &Env{Keys: d.Order()}
	f := Map(env)
	p := d.Root["p"]
	text := func(s string, err error) string {
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	if got := text(f["json"].(func(any) (string, error))(p)); got != `{"event":"created","id":"<b>&","n":2,"f":1.5,"l":[true,null],"e":{}}` {
		t.Errorf("json: %s", got)
	}
	want := "{\n  \"event\": \"created\",\n  \"id\": \"<b>&\",\n  \"n\": 2,\n  \"f\": 1.5,\n  \"l\": [\n    true,\n    null\n  ],\n  \"e\": {}\n}"
	if got := text(f["prettyJson"].(func(any) (string, error))(p)); got != want {
		t.Errorf("prettyJson:\n%s", got)
	}
	es, _ := f["entries"].(func(any) ([]any, error))(p)
	if first := es[0].(map[string]any); first["key"] != "event" || first["value"] != "created" {
		t.Errorf("entries: %v", es)
	}
}

// TestSprigNamesKeepSprigsMeaning: a function sprig defines means what
// sprig's documentation says, so an author who knows sprig is never
// surprised; the engine's own functions have names of their own.
func TestSprigNamesKeepSprigsMeaning(t *testing.T) {
	cases := map[string]string{
		`{{ until 3 }}`:                            "[0 1 2]",
		`{{ plural "run" "runs" 1 }}`:              "run",
		`{{ plural "run" "runs" 2 }}`:              "runs",
		`{{ trunc 3 "héllo" }}`:                    "hél",
		`{{ substr 1 3 "héllo" }}`:                 "él",
		`{{ keys (dict "b" 1 "a" 2) | join "," }}`: "a,b",
	}
	for src, want := range cases {
		tmpl := template.Must(template.New("t").Funcs(Map(&Env{})).Parse(src))
		var b strings.Builder
		if err := tmpl.Execute(&b, nil); err != nil || b.String() != want {
			t.Errorf("%s = %q (%v), want %q", src, b.String(), err, want)
		}
	}
	for _, gone := range []string{"truncate", "ago"} {
		if _, ok := Map(&Env{})[gone]; ok {
			t.Errorf("%s is still defined", gone)
		}
	}
}

// TestCheapFunctionsMatchTheirPatterns: trimEnd and indentLines give what
// the regexReplaceAll calls they replace gave, on text with every kind of
// line break and white space.
func TestCheapFunctionsMatchTheirPatterns(t *testing.T) {
	replace := Map(&Env{})["regexReplaceAll"].(func(string, string, string) (string, error))
	re := func(pattern, s, repl string) string {
		out, err := replace(pattern, s, repl)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	for _, s := range []string{"", "a", "a\n", "a \t\n\r\f", "a\n\nb\n", "\nx", "a\n\n\nb", "a\r\nb", "é \u00a0\n", "x\n  y\n"} {
		if got, want := trimEnd(s), re(`\s+\z`, s, ""); got != want {
			t.Errorf("trimEnd(%q) = %q, regexReplaceAll gives %q", s, got, want)
		}
		if got, want := indentLines("  ", s), re("\n(.)", s, "\n  ${1}"); got != want {
			t.Errorf("indentLines(%q) = %q, regexReplaceAll gives %q", s, got, want)
		}
	}
}
