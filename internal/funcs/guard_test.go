package funcs

import (
	"context"
	"errors"
	"strings"
	"testing"
	"text/template"
)

// run executes src with every function bound to an env of the given limits,
// in a run of ctx.
func run(ctx context.Context, limits Limits, src string) (string, error) {
	env := &Env{Limits: limits, Run: &Run{Ctx: ctx}}
	var tmpl *template.Template
	env.Templates = func() *template.Template { return tmpl }
	tmpl = template.Must(template.New("t").Funcs(Map(env)).Parse(src))
	var b strings.Builder
	err := tmpl.Execute(&b, nil)
	return b.String(), err
}

// TestValuesBuiltInTemplatesAreBounded: no function builds a text over the
// output limit or a list over the list limit, however a template calls it;
// the ones that could build far more than their arguments are refused
// before they build anything. Each case would take gigabytes unbounded.
func TestValuesBuiltInTemplatesAreBounded(t *testing.T) {
	limits := Limits{ListItems: 1000, OutputBytes: 1 << 20}
	dag := `{{ $l := list "x" }}{{ range until 60 }}{{ $l = list $l $l }}{{ end }}`
	cases := map[string]string{
		"print doubling":      `{{ $s := repeat 100000 "x" }}{{ range until 50 }}{{ $s = print $s $s }}{{ end }}`,
		"cat doubling":        `{{ $s := repeat 100000 "x" }}{{ range until 50 }}{{ $s = cat $s $s }}{{ end }}`,
		"printf doubling":     `{{ $s := repeat 100000 "x" }}{{ range until 50 }}{{ $s = printf "%s%s" $s $s }}{{ end }}`,
		"printf width":        `{{ printf "%999999999d" 1 }}`,
		"printf star width":   `{{ printf "%*d" 1000000000 1 }}`,
		"printf index width":  `{{ printf "%[2]*[1]d" 1 1000000000 }}`,
		"println":             `{{ $s := repeat 600000 "x" }}{{ println $s $s }}`,
		"html escapes":        `{{ html (repeat 200000 "<") }}`,
		"js escapes":          `{{ js (repeat 200000 "<") }}`,
		"urlquery escapes":    `{{ urlquery (repeat 400000 "<") }}`,
		"replace empty":       `{{ replace "" (repeat 1000 "y") (repeat 10000 "x") }}`,
		"regexReplaceAll":     `{{ regexReplaceAll "" (repeat 10000 "x") (repeat 1000 "y") }}`,
		"regexReplaceAll $0":  `{{ regexReplaceAll "x+" (repeat 2000 "x") (repeat 600 "$0") }}`,
		"indent":              `{{ indent 1000000000 "a\nb" }}`,
		"nindent":             `{{ nindent 100000 (repeat 100 "\n") }}`,
		"indentLines":         `{{ indentLines (repeat 10000 "p") (repeat 10000 "a\n") }}`,
		"wrapWith":            `{{ wrapWith 1 (repeat 1000 "-") (repeat 10000 "x") }}`,
		"join":                `{{ join (repeat 100000 "-") (until 1000) }}`,
		"toJson of a dag":     dag + `{{ toJson $l }}`,
		"prettyJson of a dag": dag + `{{ prettyJson $l }}`,
		"toString of a dag":   dag + `{{ toString $l }}`,
		"print of a dag":      dag + `{{ print $l }}`,
		"deepCopy of a dag":   dag + `{{ $c := deepCopy $l }}`,
		"toStrings of a dag":  dag + `{{ $c := toStrings $l }}`,
		"an action of a dag":  dag + `{{ $l }}`,
		"a dict of a dag":     `{{ $d := dict "a" 1 }}{{ range until 60 }}{{ $d = dict "a" $d "b" $d }}{{ end }}{{ $d }}`,
		"append of a dag":     `{{ $l := list "x" }}{{ range until 60 }}{{ $l = append (list $l) $l }}{{ end }}`,
		"splitn":              `{{ $m := splitn "," 100000 (repeat 100000 ",") }}`,
		"include in a loop":   `{{ define "big" }}{{ range until 1000 }}{{ range until 1000 }}xxxxxxxx{{ end }}{{ end }}{{ end }}{{ $s := include "big" . }}`,
		"splitList":           `{{ $l := splitList "" (repeat 100000 "x") }}`,
		"split":               `{{ $l := split "," (repeat 100000 ",") }}`,
		"regexFindAll":        `{{ $l := regexFindAll "x" (repeat 10000 "x") -1 }}`,
		"regexSplit":          `{{ $l := regexSplit "x" (repeat 10000 "x") -1 }}`,
		"append in a loop":    `{{ $l := list }}{{ range until 1000 }}{{ range until 1000 }}{{ $l = append $l 1 }}{{ end }}{{ end }}`,
		"concat doubling":     `{{ $l := until 1000 }}{{ range until 30 }}{{ $l = concat $l $l }}{{ end }}`,
		"title growth":        `{{ $s := "x" }}{{ range until 40 }}{{ $s = upper (print $s $s) }}{{ end }}`,
	}
	for name, src := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := run(context.Background(), limits, src)
			if err == nil || !strings.Contains(err.Error(), "limit") {
				t.Fatalf("got %v, want an error naming the limit", err)
			}
		})
	}
}

// TestTheIssuesTemplateStops: the template that ran for 40 s and took
// 10.8 GB stops at the default output limit.
func TestTheIssuesTemplateStops(t *testing.T) {
	_, err := run(context.Background(), Limits{ListItems: 100_000, OutputBytes: 32 << 20},
		`{{ $s := repeat 1000000 "x" }}{{ range until 50000 }}{{ $s = print $s $s }}{{ end }}`)
	if err == nil || !strings.Contains(err.Error(), "print would build a text of more than 33554432 bytes") {
		t.Fatalf("got %v", err)
	}
}

// TestValueBuildersSeeTheDeadline: a template that only builds values,
// calling no list function, stops once its run's context is done.
func TestValueBuildersSeeTheDeadline(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, src := range []string{`{{ $s := print "x" }}`, `{{ $s := upper "x" }}`, `{{ $l := list 1 }}`,
		`{{ $p := derivePassword 1 "long" "password" "user" "example.com" }}`,
		`{{ $s := printf "%s" "x" }}`, `{{ $s := replace "a" "b" "a" }}`, `{{ $d := dict "a" 1 }}`} {
		if _, err := run(ctx, Limits{}, src); !errors.Is(err, context.Canceled) {
			t.Errorf("%s: got %v, want the run's context error", src, err)
		}
	}
}

// TestGuardedFunctionsKeepTheirMeaning: under the limits, the guarded
// functions give what the ones they wrap give.
func TestGuardedFunctionsKeepTheirMeaning(t *testing.T) {
	cases := map[string]string{
		`{{ print "a" 1 "b" }}`:                           "a1b",
		`{{ println "a" 1 }}`:                             "a 1\n",
		`{{ printf "%5d|%-3s|%.2f" 42 "x" 3.14159 }}`:     "   42|x  |3.14",
		`{{ printf "%*d" 4 7 }}`:                          "   7",
		`{{ html "<a>" }}`:                                "&lt;a&gt;",
		`{{ js "it's" }}`:                                 `it\'s`,
		`{{ urlquery "a b" }}`:                            "a+b",
		`{{ replace "a" "bb" "aXa" }}`:                    "bbXbb",
		`{{ regexReplaceAll "a(x*)b" "-axxb-" "${1}W" }}`: "-xxW-",
		`{{ indent 2 "a\nb" }}`:                           "  a\n  b",
		`{{ wrapWith 3 "|" "abcdef" }}`:                   "abc|def",
		`{{ join "," (list 1 "a" 2) }}`:                   "1,a,2",
		`{{ toJson (list 1 "a") }}`:                       `[1,"a"]`,
		`{{ splitList "," "a,b" | len }}`:                 "2",
		`{{ regexFindAll "a" "aaa" -1 | len }}`:           "3",
		`{{ upper "abc" }}`:                               "ABC",
		`{{ list (list 1 2) (dict "a" 1) }}`:              "[[1 2] map[a:1]]",
		`{{ len (splitn "," 2 "a,b,c") }}`:                "2",
	}
	for src, want := range cases {
		got, err := run(context.Background(), Limits{ListItems: 1000, OutputBytes: 1 << 20}, src)
		if err != nil || got != want {
			t.Errorf("%s = %q (%v), want %q", src, got, err, want)
		}
	}
}
