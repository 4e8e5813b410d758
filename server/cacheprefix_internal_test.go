package server

import "testing"

// TestPrefixesBounded: at most max keys are kept, the least recently
// seen forgotten first; a forgotten key counts as new.
func TestPrefixesBounded(t *testing.T) {
	p := newPrefixes(2)
	if p.changed("a", "x") || p.changed("b", "x") || p.changed("a", "x") || !p.changed("a", "y") {
		t.Fatal("changes miscounted")
	}
	p.changed("c", "x") // b is the least recently seen: forgotten
	if p.len() != 2 || p.changed("b", "other") || !p.changed("c", "z") {
		t.Errorf("len %d", p.len())
	}
}
