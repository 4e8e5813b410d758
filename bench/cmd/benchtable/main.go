// Command benchtable reads the output of `go test -bench` with -count N on
// stdin and prints one markdown row per benchmark: the median of its runs
// for each unit it reported, and how far the slowest and fastest run of its
// time per op lie from that median. Medians of one run of the benchmarks,
// and the ratios between them, are what BENCH.md shows.
//
//	go test -run '^$' -bench . -count 6 | go run ./cmd/benchtable
package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Units shown in their own columns, in this order; any other unit a
// benchmark reports goes into the last column.
var columns = []string{"ns/op", "B/op", "allocs/op"}

type bench struct {
	name   string
	values map[string][]float64
	units  []string // in the order first reported
}

var procs = regexp.MustCompile(`-\d+$`)

func main() {
	benches, header, err := parse(os.Stdin)
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchtable:", err)
		os.Exit(1)
	}
	write(os.Stdout, benches, header)
}

func parse(r io.Reader) ([]*bench, []string, error) {
	var header []string
	var order []*bench
	byName := map[string]*bench{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		for _, h := range []string{"goos:", "goarch:", "cpu:"} {
			if strings.HasPrefix(line, h) && !slices.Contains(header, line) {
				header = append(header, line)
			}
		}
		f := strings.Fields(line)
		if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") {
			continue
		}
		if _, err := strconv.Atoi(f[1]); err != nil {
			continue
		}
		name := procs.ReplaceAllString(strings.TrimPrefix(f[0], "Benchmark"), "")
		b := byName[name]
		if b == nil {
			b = &bench{name: name, values: map[string][]float64{}}
			byName[name] = b
			order = append(order, b)
		}
		for i := 2; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				return nil, nil, fmt.Errorf("%s: %q is not a number", f[0], f[i])
			}
			unit := f[i+1]
			if _, ok := b.values[unit]; !ok {
				b.units = append(b.units, unit)
			}
			b.values[unit] = append(b.values[unit], v)
		}
	}
	return order, header, sc.Err()
}

func write(w io.Writer, benches []*bench, header []string) {
	for _, h := range header {
		fmt.Fprintf(w, "%s  \n", h)
	}
	if len(header) > 0 {
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w, "| benchmark | runs | time/op | spread | B/op | allocs/op | other (medians) |")
	fmt.Fprintln(w, "|---|--:|--:|--:|--:|--:|---|")
	for _, b := range benches {
		ns := b.values["ns/op"]
		row := []string{b.name, strconv.Itoa(len(ns)), "", "", "", "", ""}
		if len(ns) > 0 {
			m := median(ns)
			row[2] = duration(m)
			row[3] = fmt.Sprintf("−%.0f%% +%.0f%%", 100*(m-slices.Min(ns))/m, 100*(slices.Max(ns)-m)/m)
		}
		if v, ok := b.values["B/op"]; ok {
			row[4] = bytesize(median(v))
		}
		if v, ok := b.values["allocs/op"]; ok {
			row[5] = strconv.FormatFloat(median(v), 'f', 0, 64)
		}
		var other []string
		for _, u := range b.units {
			if slices.Contains(columns, u) {
				continue
			}
			other = append(other, fmt.Sprintf("%s %s", number(median(b.values[u])), u))
		}
		row[6] = strings.Join(other, ", ")
		fmt.Fprintf(w, "| %s |\n", strings.Join(row, " | "))
	}
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

func duration(ns float64) string {
	return scaled(ns, unit{1e9, 2, "s"}, unit{1e6, 2, "ms"}, unit{1e3, 1, "µs"}, unit{1, 0, "ns"})
}

func bytesize(b float64) string {
	return scaled(b, unit{1e6, 2, "MB"}, unit{1e3, 1, "KB"}, unit{1, 0, "B"})
}

// unit is a step of a scale: a value of at least size is shown in it,
// divided by size, with digits decimals.
type unit struct {
	size   float64
	digits int
	name   string
}

// scaled shows v in the largest of units (largest first) that v reaches,
// or in the last, the smallest.
func scaled(v float64, units ...unit) string {
	for i, u := range units {
		if v >= u.size || i == len(units)-1 {
			return fmt.Sprintf("%.*f %s", u.digits, v/u.size, u.name)
		}
	}
	return ""
}

func number(v float64) string {
	switch {
	case v >= 100:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case v >= 10:
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}
