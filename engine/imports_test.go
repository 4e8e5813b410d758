package engine_test

import (
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/promptsmith/promptsmith"

// importsOf reads the imports of the package in dir (its non-test files).
func importsOf(t *testing.T, dir string) []string {
	t.Helper()
	pkg, err := build.ImportDir(dir, 0)
	if err != nil {
		t.Fatalf("%s: %v", dir, err)
	}
	return pkg.Imports
}

// docTree reads the import rules that doc.go writes down: one line a
// package, "├── check    → outline, verbatim, ...".
func docTree(t *testing.T) map[string][]string {
	t.Helper()
	src, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	line := regexp.MustCompile(`(?m)^//\t[├└]── (\w+)\s*(?:→ (.*))?$`)
	tree := map[string][]string{}
	for _, m := range line.FindAllStringSubmatch(string(src), -1) {
		var deps []string
		if m[2] != "" {
			deps = strings.Split(m[2], ", ")
		}
		tree[m[1]] = deps
	}
	if len(tree) == 0 {
		t.Fatal("doc.go writes down no import rules")
	}
	return tree
}

// TestImportRules: every package under engine/ imports only the packages
// doc.go says it may, so the stages form a tree with the engine on top.
func TestImportRules(t *testing.T) {
	t.Parallel()
	tree := docTree(t)
	for _, dir := range stageDirs(t) {
		name := filepath.Base(dir)
		allowed, listed := tree[name]
		if !listed {
			t.Errorf("engine/%s is not in the import rules of doc.go", dir)
			continue
		}
		for _, imp := range importsOf(t, dir) {
			dep, ok := stageOf(imp)
			if !ok {
				if strings.HasPrefix(imp, module) && imp != module+"/internal/phrase" {
					t.Errorf("engine/%s imports %s, outside the engine (only internal/phrase is allowed)", name, imp)
				}
				continue
			}
			if !slices.Contains(allowed, dep) {
				t.Errorf("engine/%s imports engine stage %s; doc.go allows %v", dir, dep, allowed)
			}
		}
	}
	for _, imp := range importsOf(t, ".") {
		if dep, ok := stageOf(imp); ok {
			if _, listed := tree[dep]; !listed {
				t.Errorf("engine imports engine/%s, which doc.go does not list", dep)
			}
		}
	}
}

// stageDirs lists the engine's stage packages, relative to engine/: the
// public ones beside engine.go, those under engine/internal, and those
// under the module's internal/ that doc.go lists (the stages the tools
// outside the engine use too).
func stageDirs(t *testing.T) []string {
	t.Helper()
	tree := docTree(t)
	var dirs []string
	for _, parent := range []string{".", "internal", "../internal"} {
		entries, err := os.ReadDir(parent)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if !e.IsDir() || e.Name() == "testdata" || e.Name() == "internal" {
				continue
			}
			if _, listed := tree[e.Name()]; parent == "../internal" && !listed {
				continue // a package of the module, not an engine stage
			}
			dirs = append(dirs, filepath.Join(parent, e.Name()))
		}
	}
	return dirs
}

// stageOf names the engine stage an import path is, wherever it lives:
// under engine/, or under the module's internal/ (where only the stages
// doc.go lists count).
func stageOf(imp string) (string, bool) {
	if rest, ok := strings.CutPrefix(imp, module+"/engine/"); ok {
		return strings.TrimPrefix(rest, "internal/"), true
	}
	if rest, ok := strings.CutPrefix(imp, module+"/internal/"); ok && slices.Contains(internalStages, rest) {
		return rest, true
	}
	return "", false
}

// internalStages are the engine's stages that live under the module's
// internal/, where the authoring tools (lsp, typegen, lint) reach them.
var internalStages = []string{"funcs", "input", "lint", "manifest", "parsetree", "pointer", "problem", "schema"}

// TestRenderPathReadsNoHost: no package of the project on the render path
// (the engine and every project package it depends on) imports what would
// let a render run a command, make a system call, reach the network, or
// gather from the host. Only the packages' own import lists count: the
// standard library and sprig may bring some of these in on their own.
func TestRenderPathReadsNoHost(t *testing.T) {
	t.Parallel()
	forbidden := []string{"os/exec", "syscall", "net", module + "/internal/gather"}
	seen := map[string]bool{}
	queue := []string{module + "/engine"}
	for len(queue) > 0 {
		pkg := queue[0]
		queue = queue[1:]
		if seen[pkg] {
			continue
		}
		seen[pkg] = true
		dir := filepath.Join("..", strings.TrimPrefix(strings.TrimPrefix(pkg, module), "/"))
		for _, imp := range importsOf(t, dir) {
			if slices.Contains(forbidden, imp) {
				t.Errorf("%s, on the render path, imports %s", pkg, imp)
			}
			if strings.HasPrefix(imp, module+"/") {
				queue = append(queue, imp)
			}
		}
	}
	if len(seen) < 5 {
		t.Fatalf("walked only %v", seen)
	}
}

// TestNoPackageState: no package of the module keeps state at package
// level, where renders, libraries and servers would share it and output
// could come to depend on what ran before. A package-level var may hold
// only a sentinel error, a compiled regexp, a file embedded with
// go:embed, or configuration built once and never written (listed here by
// name, with the reason).
func TestNoPackageState(t *testing.T) {
	t.Parallel()
	configuration := map[string]string{
		"outline.blockParser": "goldmark's parser keeps each parse's state in a context of its own",
		"promptsmith.once":    "the embedded library, loaded on first use and never written after",
		"promptsmith.lib":     "the embedded library, loaded on first use and never written after",
		"promptsmith.loadErr": "the embedded library, loaded on first use and never written after",
		"goldentest.update":   "go test's -update flag, which the test binary parses once",
	}
	immutable := regexp.MustCompile(`^(errors\.New|regexp\.MustCompile)\(`)
	fset := token.NewFileSet()
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case "bench", "testdata", "editors", "node_modules", ".git", ".ci":
				return filepath.SkipDir // another module, or no package of this one
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
		if err != nil {
			return err
		}
		src, _ := os.ReadFile(path)
		for _, decl := range f.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok || gd.Tok != token.VAR || embedded(gd) {
				continue
			}
			for _, spec := range gd.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, name := range vs.Names {
					key := f.Name.Name + "." + name.Name
					if _, ok := configuration[key]; ok || name.Name == "_" {
						continue
					}
					if i < len(vs.Values) {
						v := vs.Values[i]
						if immutable.Match(src[fset.Position(v.Pos()).Offset:fset.Position(v.End()).Offset]) {
							continue
						}
					}
					t.Errorf("%s: package-level var %s holds state; keep it in a Library, a render or an option", fset.Position(name.Pos()), key)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// embedded reports whether gd declares a file embedded with go:embed.
func embedded(gd *ast.GenDecl) bool {
	if gd.Doc == nil {
		return false
	}
	for _, c := range gd.Doc.List {
		if strings.HasPrefix(c.Text, "//go:embed ") {
			return true
		}
	}
	return false
}
