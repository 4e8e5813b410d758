package rules

import (
	"strings"
	"testing"

	"github.com/promptsmith/promptsmith/internal/input"
	"github.com/promptsmith/promptsmith/internal/manifest"
)

func check(t *testing.T, r manifest.Rules, doc string) error {
	t.Helper()
	d, err := input.Decode(input.Input{Name: "in", Data: []byte(doc)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Release()
	return (&Checker{Rules: r}).Check(d)
}

// TestRulesUseTheOneEquality: unique and references compare as input.Equal
// does, so a number never stands for the string of its digits.
func TestRulesUseTheOneEquality(t *testing.T) {
	refs := manifest.Rules{References: []manifest.Reference{{Field: "/refs/*", In: "/ids/*"}}}
	if err := check(t, refs, `{"ids": ["1", "2"], "refs": [1]}`); err == nil || !strings.Contains(err.Error(), "is not one of the values at /ids/*") {
		t.Errorf("1 matched \"1\": %v", err)
	}
	if err := check(t, refs, `{"ids": [1, 2], "refs": [2.0, 1]}`); err != nil {
		t.Errorf("numbers by value: %v", err)
	}
	unique := manifest.Rules{Unique: []string{"/l/*"}}
	if err := check(t, unique, `{"l": [1, "1", {"a": 1, "b": 2}]}`); err != nil {
		t.Errorf("1 and \"1\" are different values: %v", err)
	}
	if err := check(t, unique, `{"l": [{"a": 1, "b": 2}, {"b": 2, "a": 1}]}`); err == nil || !strings.Contains(err.Error(), "/l/1") {
		t.Errorf("objects equal whatever their key order: %v", err)
	}
}
