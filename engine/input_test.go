package engine

import (
	"context"
	"strings"
	"testing"
)

// TestManyViolationsStayCheap: a large input that breaks the schema in every
// element is reported (20 violations at most) after one parse for positions.
func TestManyViolationsStayCheap(t *testing.T) {
	t.Parallel()
	lib := mustLoadNote(t, nil)
	items := make([]string, 20000)
	for i := range items {
		items[i] = `{"id": 1}`
	}
	_, err := lib.Render(context.Background(), "note", Input{Name: "big.json", Data: []byte(`{"title": "T", "items": [` + strings.Join(items, ",") + `]}`)})
	e := AsError(err)
	if e == nil || e.Field != "/items/0/id" || e.Position != "big.json:1:27" || len(e.Also) != 19 {
		t.Fatalf("got %s at %s (also %d)", e.Field, e.Position, len(e.Also))
	}
}

func TestUnknownFieldsWithQuotes(t *testing.T) {
	t.Parallel()
	_, err := renderNote(t, "title: T\n\"it's\": 1\n")
	e := AsError(err)
	if e == nil || e.Field != "/it's" || e.Position != "in.yaml:2:1" {
		t.Fatalf("got %v", err)
	}
}
