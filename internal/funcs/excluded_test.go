package funcs

import (
	"regexp"
	"slices"
	"strings"
	"testing"
	"text/template"
)

// TestEveryExclusionSaysWhy holds Excluded and its companion data to each
// other: every excluded function says what it would read, why that is
// refused and what to write instead, and the templates its advice shows
// parse with the functions templates have.
func TestEveryExclusionSaysWhy(t *testing.T) {
	excluded := Excluded()
	for _, name := range excluded {
		x, ok := WhyExcluded(name)
		if !ok || x.Reads == "" || x.Why == "" || x.Instead == "" {
			t.Errorf("%s: no reason or advice: %+v", name, x)
		}
	}
	for name := range exclusions() {
		if !slices.Contains(excluded, name) {
			t.Errorf("%s has a reason but is not excluded", name)
		}
	}
	if _, ok := WhyExcluded("upper"); ok {
		t.Error("upper is not excluded")
	}
	action := regexp.MustCompile(`\{\{.*?\}\}`)
	f := Map(&Env{})
	for _, name := range excluded {
		x, _ := WhyExcluded(name)
		shown := strings.Join(action.FindAllString(x.Instead, -1), " ")
		if _, err := template.New(name).Funcs(f).Parse(shown); err != nil {
			t.Errorf("%s: the advice shows %s, which does not parse: %v", name, shown, err)
		}
	}
	for name, want := range map[string]string{
		"now":           "use the input's now field: templates get time from the input, so the same input gives the same bytes",
		"env":           "pass the value in the input",
		"expandenv":     "pass the value in the input",
		"randAlpha":     "derive the value from the input",
		"uuidv4":        "derive the id from the input",
		"shuffle":       "sortBy",
		"bcrypt":        "outside the prompt",
		"getHostByName": "before rendering",
	} {
		if x, _ := WhyExcluded(name); !strings.Contains(x.Instead, want) {
			t.Errorf("%s: %q does not say %q", name, x.Instead, want)
		}
	}
}
