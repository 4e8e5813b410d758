package funcs

import (
	"fmt"
	"strings"
)

// Table is the markdown table of the catalog that templates/README.md
// shows authors: a test keeps the two the same, so the table cannot drift
// from what templates can call.
func Table() string {
	var b strings.Builder
	b.WriteString("| namespace | function | gives | example | writes |\n|---|---|---|---|---|\n")
	for _, fn := range Catalog(nil) {
		ex := fn.Examples[0]
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", fn.Namespace, code(fn.Signature), cell(fn.Doc), code(ex.Template), code(ex.Output))
	}
	return b.String()
}

// cell makes text safe inside one cell of a markdown table, in a code span
// or not: pipes escaped, line breaks written as \n.
func cell(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	return strings.ReplaceAll(s, "\n", `\n`)
}

// code writes s as a code span in a table cell, delimited by more backticks
// than any run in s.
func code(s string) string {
	longest, run := 0, 0
	for _, c := range s {
		if c == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	delim := strings.Repeat("`", longest+1)
	pad := ""
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		pad = " "
	}
	return delim + pad + cell(s) + pad + delim
}
