package server

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// routeKey writes a route as the docs may: its method and path, each
// {parameter} written {}, without a query or the pattern's {$}.
func routeKey(method, path string) string {
	path = strings.TrimSuffix(path, "{$}")
	if i := strings.IndexAny(path, "?["); i >= 0 {
		path = path[:i]
	}
	return method + " " + regexp.MustCompile(`\{[^}]*\}`).ReplaceAllString(path, "{}")
}

// TestRouteListsInTheDocs: the routes package server's comment lists and
// those docs/http-api.md's table lists are the routes the server has.
func TestRouteListsInTheDocs(t *testing.T) {
	var have []string
	for _, rt := range (&Server{metrics: newMetrics()}).routeTable() {
		have = append(have, routeKey(rt.method, rt.path))
	}
	slices.Sort(have)

	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	var listed []string
	for _, m := range regexp.MustCompile(`(?m)^//\t(GET|POST) +([^\s,]+(?:, [^\s,]+)*)`).FindAllStringSubmatch(string(doc), -1) {
		for _, p := range strings.Split(m[2], ", ") {
			listed = append(listed, routeKey(m[1], p))
		}
	}
	slices.Sort(listed)
	if !slices.Equal(listed, have) {
		t.Errorf("server/doc.go lists %v\nthe server has %v", listed, have)
	}

	guide, err := os.ReadFile("../docs/http-api.md")
	if err != nil {
		t.Fatal(err)
	}
	listed = nil
	for _, m := range regexp.MustCompile("(?m)^\\| `(GET|POST) ([^`]+)`").FindAllStringSubmatch(string(guide), -1) {
		listed = append(listed, routeKey(m[1], m[2]))
	}
	slices.Sort(listed)
	if !slices.Equal(listed, have) {
		t.Errorf("docs/http-api.md lists %v\nthe server has %v", listed, have)
	}
}
