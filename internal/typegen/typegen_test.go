package typegen

import (
	"strings"
	"testing"
)

func TestTypeName(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"delegation":     "Delegation",
		"rate_limits":    "RateLimits",
		"agentDef":       "AgentDef",
		"my-key":         "MyKey",
		"123abc":         "T123abc",
		"é t":            "T",
		"":               "Type",
		"record":         "RecordType",
		"none":           "NoneType",
		"typed dict":     "TypedDictType",
		"otherActiveRun": "OtherActiveRun",
	} {
		if got := typeName(in); got != want {
			t.Errorf("typeName(%q) = %q, want %q", in, got, want)
		}
	}
	if got := RootName("space"); got != "SpaceInput" {
		t.Errorf("RootName(space) = %q", got)
	}
}

func TestPyString(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		`plain`:       `"plain"`,
		`say "hi"`:    `"say \"hi\""`,
		"a\\b\n\r\t":  `"a\\b\n\r\t"`,
		"bell\a é":    `"bell\x07 é"`,
		"\u2028 line": "\"\u2028 line\"",
	} {
		if got := pyString(in); got != want {
			t.Errorf("pyString(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestWrap(t *testing.T) {
	t.Parallel()
	got := docLines([]string{"one two three four five six seven eight nine ten eleven twelve", "- a list item that is long enough to wrap onto a second line here"}, 30)
	want := []string{
		"one two three four five six",
		"seven eight nine ten eleven",
		"twelve",
		"",
		"- a list item that is long",
		"  enough to wrap onto a second",
		"  line here",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("docLines:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestConditions: if/then/else is stated in the doc of the object it
// constrains, since neither language can say it.
func TestConditions(t *testing.T) {
	t.Parallel()
	schema := `{"type": "object", "properties": {"access": {"enum": ["inherited", "revoked"]}, "reason": {"type": "string"}},
	  "if": {"properties": {"access": {"const": "revoked"}}, "required": ["access"]},
	  "then": {"required": ["reason"]}, "else": {"properties": {"reason": false}}}`
	for _, lang := range Langs() {
		src, err := Generate(lang, "x", []byte(schema))
		if err != nil {
			t.Fatal(err)
		}
		// The doc's words, without comment markers and line breaks.
		var words []string
		for _, w := range strings.Fields(string(src)) {
			if w != "*" && w != "#" {
				words = append(words, w)
			}
		}
		text := strings.Join(words, " ")
		for _, want := range []string{"Checked by the renderer, not by this type:", `When access is "revoked": reason is required.`, "Otherwise: reason must be absent."} {
			if !strings.Contains(text, want) {
				t.Errorf("%s output lacks %q:\n%s", lang, want, src)
			}
		}
	}
}

func TestErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		lang   Lang
		schema string
		want   string
	}{
		{TypeScript, `{"type": "object", "properties": {"a": {"$ref": "other.json#/x"}}}`, `$ref "other.json#/x"`},
		{Python, `{"type": "object", "properties": {"a": {"type": "strin"}}}`, `unknown type "strin"`},
		{TypeScript, `{"type": "object",`, "reading the schema of x"},
		{"rust", `{"type": "object"}`, `unknown language "rust" (known: ts, python, go)`},
	} {
		_, err := Generate(tc.lang, "x", []byte(tc.schema))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Generate(%s, %s) = %v, want an error with %q", tc.lang, tc.schema, err, tc.want)
		}
	}
}
