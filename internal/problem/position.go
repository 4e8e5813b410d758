package problem

import (
	"cmp"
	"strconv"
	"strings"
	"text/template/parse"
)

// TemplateLine is the line of node n in the template tree, or 0 where
// text/template gives none.
func TemplateLine(tree *parse.Tree, n parse.Node) int {
	loc, _ := tree.ErrorContext(n) // name:line:col
	parts := strings.Split(loc, ":")
	if len(parts) < 3 {
		return 0
	}
	l, _ := strconv.Atoi(parts[len(parts)-2])
	return l
}

// ComparePositions orders positions (file, file:line or file:line:col) as
// they stand in the files: by file, then by line and column as numbers, so
// that line 9 comes before line 10 and column 5 before column 29, which a
// comparison of the strings gets wrong. A position without a line comes
// before the lines of its file.
func ComparePositions(a, b string) int {
	fa, la, ca := splitPosition(a)
	fb, lb, cb := splitPosition(b)
	if c := strings.Compare(fa, fb); c != 0 {
		return c
	}
	if c := cmp.Compare(la, lb); c != 0 {
		return c
	}
	return cmp.Compare(ca, cb)
}

// splitPosition reads file:line:col from its end, where the numbers are:
// a file name may hold colons of its own.
func splitPosition(pos string) (file string, line, col int) {
	var nums []int
	for len(nums) < 2 {
		i := strings.LastIndexByte(pos, ':')
		if i < 0 {
			break
		}
		n, err := strconv.Atoi(pos[i+1:])
		if err != nil || n < 0 {
			break
		}
		nums = append(nums, n)
		pos = pos[:i]
	}
	switch len(nums) {
	case 2:
		return pos, nums[1], nums[0]
	case 1:
		return pos, nums[0], 0
	}
	return pos, 0, 0
}
