package promptsmith_test

import (
	"fmt"
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The bounds on the length of a function (its lines, from func to the
// closing brace) in the module's non-test files: none over maxFuncLines,
// and at most maxLongFuncs over longFuncLines. The aim was five over 80;
// once the long ones were split (the audit schema into embedded SQL, the
// language server's dispatch and the metrics into tables, the serve
// command, the render's stages, the checks' and template errors'
// explanations, the flow YAML reader) none is, and maxLongFuncs is how
// many are now: it never goes up. A function that grows past 80 lines is
// split where its parts have names of their own.
const (
	maxFuncLines  = 120
	longFuncLines = 80
	maxLongFuncs  = 0
)

// TestFunctionLength: no function of the module is over 120 lines, and
// few are over 80: a long function is split where its parts have
// names of their own (states, queries, stages), not where a counter says.
func TestFunctionLength(t *testing.T) {
	var long []string
	fset := token.NewFileSet()
	for _, dir := range moduleDirs(t) {
		pkg, err := build.ImportDir(dir, 0)
		if err != nil && len(pkg.IgnoredGoFiles) == 0 {
			continue // no Go package here, or only tests
		}
		for _, file := range append(pkg.GoFiles, pkg.IgnoredGoFiles...) {
			if err := longFunctions(fset, filepath.Join(dir, file), &long); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, l := range long {
		if n, _ := strconv.Atoi(strings.TrimSpace(l[:4])); n > maxFuncLines {
			t.Errorf("%s is over %d lines: split it", l, maxFuncLines)
		}
	}
	slices.Sort(long)
	slices.Reverse(long)
	t.Logf("functions over %d lines: %d\n%s", longFuncLines, len(long), strings.Join(long, "\n"))
	if len(long) > maxLongFuncs {
		t.Errorf("%d functions are over %d lines, more than %d:\n%s", len(long), longFuncLines, maxLongFuncs, strings.Join(long, "\n"))
	}
}

// longFunctions adds to long each function of the file at path over
// longFuncLines lines: "<lines> <name> (<path>)". A generated file and a
// test file count for nothing.
func longFunctions(fset *token.FileSet, path string, long *[]string) error {
	if strings.HasSuffix(path, "_test.go") {
		return nil
	}
	f, err := parser.ParseFile(fset, path, nil, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return err
	}
	if ast.IsGenerated(f) {
		return nil
	}
	for _, decl := range f.Decls {
		fn, ok := decl.(*ast.FuncDecl)
		if !ok || fn.Body == nil {
			continue
		}
		lines := fset.Position(fn.End()).Line - fset.Position(fn.Pos()).Line + 1
		name := fn.Name.Name
		if fn.Recv != nil {
			name = receiverType(fn.Recv.List[0].Type) + "." + name
		}
		if lines > longFuncLines {
			*long = append(*long, fmt.Sprintf("%4d %s (%s)", lines, name, filepath.ToSlash(path)))
		}
	}
	return nil
}
