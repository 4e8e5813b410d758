package promptsmith_test

import (
	"go/build"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

const module = "github.com/promptsmith/promptsmith"

// layer is a row of the layer table of docs/architecture.md.
type layer struct {
	rank     int // 1 for the library; test helpers have none
	name     string
	patterns []string
}

// layerTable reads the table of docs/architecture.md: "| 1 | library |
// `engine/...`, `tokens` |".
func layerTable(t *testing.T) []layer {
	t.Helper()
	doc, err := os.ReadFile("docs/architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile("(?m)^\\| (\\d+|test) \\| ([^|]+) \\| (.+) \\|$")
	var layers []layer
	for _, m := range row.FindAllStringSubmatch(string(doc), -1) {
		l := layer{name: strings.TrimSpace(m[2])}
		if m[1] != "test" {
			l.rank = int(m[1][0] - '0')
		}
		for _, p := range strings.Split(m[3], ",") {
			l.patterns = append(l.patterns, strings.Trim(strings.TrimSpace(p), "`"))
		}
		layers = append(layers, l)
	}
	if len(layers) < 4 {
		t.Fatalf("docs/architecture.md has %d layers in its table", len(layers))
	}
	return layers
}

// layerOf finds the layer of a package (relative to the module's root) by
// the most specific pattern that matches it.
func layerOf(layers []layer, pkg string) (layer, bool) {
	best, bestLen, found := layer{}, -1, false
	for _, l := range layers {
		for _, p := range l.patterns {
			n := len(p)
			switch {
			case p == pkg:
				n += 1000 // an exact name beats any folder
			case strings.HasSuffix(p, "/..."):
				dir := strings.TrimSuffix(p, "/...")
				if pkg != dir && !strings.HasPrefix(pkg, dir+"/") {
					continue
				}
			default:
				continue
			}
			if n > bestLen {
				best, bestLen, found = l, n, true
			}
		}
	}
	return best, found
}

// TestLayers: every package of the module is in the layer table of
// docs/architecture.md, imports (in its non-test files) only packages of
// its own layer or a layer above, and no file but a test imports a test
// helper.
func TestLayers(t *testing.T) {
	layers := layerTable(t)
	checked := 0
	for _, rel := range moduleDirs(t) {
		pkg, err := build.ImportDir(rel, 0)
		if err != nil && len(pkg.TestGoFiles)+len(pkg.XTestGoFiles) == 0 {
			continue // no Go package here
		}
		own, ok := layerOf(layers, rel)
		if !ok {
			t.Errorf("%s is in no layer of docs/architecture.md", rel)
			continue
		}
		checked++
		for _, imp := range pkg.Imports {
			dep, ok := strings.CutPrefix(imp, module+"/")
			if !ok && imp != module {
				continue
			}
			if imp == module {
				dep = "."
			}
			l, ok := layerOf(layers, dep)
			switch {
			case !ok:
				t.Errorf("%s imports %s, which is in no layer", rel, dep)
			case l.rank == 0 && own.rank != 0:
				t.Errorf("%s imports %s, a test helper, outside its tests", rel, dep)
			case own.rank != 0 && l.rank > own.rank:
				t.Errorf("%s (%s) imports %s (%s), a layer below it", rel, own.name, dep, l.name)
			}
		}
	}
	if checked < 30 {
		t.Fatalf("checked only %d packages", checked)
	}
}

// moduleDirs lists the folders of the module that may hold its packages,
// relative to its root, with slashes: not testdata, another module
// (bench), the editors' plugins, deployment files or hidden folders.
func moduleDirs(t *testing.T) []string {
	t.Helper()
	var dirs []string
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		switch d.Name() {
		case "testdata", "node_modules", "bench", "editors", "deploy":
			return filepath.SkipDir
		}
		if strings.HasPrefix(d.Name(), ".") && path != "." {
			return filepath.SkipDir
		}
		dirs = append(dirs, filepath.ToSlash(path))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return dirs
}
