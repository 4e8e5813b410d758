package main

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// TestCommandList: the package comment of main.go lists every command
// render has, and no other.
func TestCommandList(t *testing.T) {
	src, err := os.ReadFile("main.go")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(src[:strings.Index(string(src), "\npackage main")])
	var listed []string
	for _, m := range regexp.MustCompile(`(?m)^//\trender(( [a-z]+)*)`).FindAllStringSubmatch(doc, -1) {
		listed = append(listed, strings.TrimSpace("render"+m[1]))
	}
	var have []string
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Runnable() {
			have = append(have, c.CommandPath())
		}
		for _, sub := range c.Commands() {
			if sub.Name() != "help" && sub.Name() != "completion" {
				walk(sub)
			}
		}
	}
	walk((&app{}).rootCommand())
	slices.Sort(listed)
	slices.Sort(have)
	if !slices.Equal(listed, have) {
		t.Errorf("main.go lists %v\nrender has %v", listed, have)
	}
}
