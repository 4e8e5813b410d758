package schema_test

import (
	"slices"
	"testing"

	"github.com/promptsmith/promptsmith/internal/schema"
)

// TestListOf: a list a template builds of a schema's values has those
// values for elements, their fields and what the schema says of them; a
// list of values the schema says nothing of says nothing either.
func TestListOf(t *testing.T) {
	root := load(t, "note").Root()
	items, _ := root.Field("items")
	l := schema.ListOf(items.Elem())
	if got := l.Elem().Names(); !slices.Equal(got, []string{"done", "id"}) {
		t.Errorf("the elements of a list of items name %v", got)
	}
	if a := l.Elem().About("id"); a.Description != "Id." || !a.Required || a.Position == "" {
		t.Errorf("an element's id: %+v", a)
	}
	meta, _ := root.Field("meta")
	title, _ := root.Field("title")
	both := schema.ListOf(schema.ListOf(meta).Elem())
	if got := both.Elem().Names(); !slices.Equal(got, []string{"source", "zone"}) {
		t.Errorf("a list of lists' elements name %v", got)
	}
	if l := schema.ListOf(title); l.Open() || len(l.Elem().Names()) != 0 {
		t.Errorf("a list of strings: open %v, names %v", l.Open(), l.Elem().Names())
	}
	if !schema.ListOf(schema.Node{}).Open() {
		t.Errorf("a list of unknown values is not open")
	}
}

// TestEntriesOf: entries of an object is a list of {key, value}, value
// what the object's values are.
func TestEntriesOf(t *testing.T) {
	root := load(t, "note").Root()
	groups, _ := root.Field("groups")
	pair := schema.EntriesOf(groups).Elem()
	if got := pair.Names(); !slices.Equal(got, []string{"key", "value"}) {
		t.Errorf("an entry names %v", got)
	}
	if a := pair.About("key"); !slices.Equal(a.Types, []string{"string"}) || !a.Required {
		t.Errorf("an entry's key: %+v", a)
	}
	value, _ := pair.Field("value")
	if got := value.Names(); !slices.Equal(got, []string{"color"}) {
		t.Errorf("an entry's value names %v", got)
	}
	if !schema.EntriesOf(schema.Node{}).Open() {
		t.Errorf("the entries of an unknown value are not open")
	}
}
