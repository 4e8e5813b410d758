package input

import (
	"bytes"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// YAMLErrorLine finds the line a YAML syntax error is really at. yaml.v3
// names the line where the enclosing construct starts (a mapping that a
// line further down breaks), not the line that breaks it; so the document
// is parsed again, cut after fewer and fewer lines, to find the first line
// after which the same error appears. It returns the line (from 1) and
// the message without yaml.v3's "line N:" prefix; line is 0 when the error
// names none and none could be found.
func YAMLErrorLine(data []byte, err error) (line int, msg string) {
	reported, msg := splitYAMLError(err)
	fails := func(n int) bool {
		var node yaml.Node
		e := yaml.Unmarshal(prefixLines(data, n), &node)
		if e == nil {
			return false
		}
		_, m := splitYAMLError(e)
		return m == msg
	}
	total := bytes.Count(data, []byte("\n")) + 1
	lo := max(reported, 1) // the error lies at or after the line yaml.v3 names
	if lo > total || !fails(total) {
		return reported, msg
	}
	hi := total // fails(hi) holds; find the least such line at or after lo
	if fails(lo) {
		return lo, msg
	}
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if fails(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi, msg
}

// splitYAMLError reads "yaml: line N: msg" as N and msg.
func splitYAMLError(err error) (int, string) {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	if rest, ok := strings.CutPrefix(msg, "line "); ok {
		if num, tail, ok := strings.Cut(rest, ": "); ok {
			if n, aerr := strconv.Atoi(num); aerr == nil {
				return n, tail
			}
		}
	}
	return 0, msg
}

func prefixLines(data []byte, n int) []byte {
	off := 0
	for i := 0; i < n; i++ {
		j := bytes.IndexByte(data[off:], '\n')
		if j < 0 {
			return data
		}
		off += j + 1
	}
	return data[:off]
}
