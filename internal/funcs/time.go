package funcs

import (
	"fmt"
	"strconv"
	"time"

	"github.com/promptsmith/promptsmith/internal/input"
)

// Templates never read the clock: every time they show is computed from
// times in the input, usually against the input's own "now", so the same
// input renders the same bytes tomorrow.

func timeFuncs() []Func {
	data := `{"now": "2026-01-02T15:04:05Z", "started": "2026-01-02T14:59:05Z", "next": "2026-01-02T18:24:05Z"}`
	return []Func{
		{Name: "relativeTime", Namespace: "time", Signature: "relativeTime TIME NOW", Fn: relativeTime,
			Doc: "how long before or after NOW TIME is: 30s ago, 5m ago, in 3h 20m, just now",
			Examples: []Example{
				{Data: data, Template: `{{ relativeTime .started .now }}`, Output: "5m ago"},
				{Data: data, Template: `{{ relativeTime .next .now }}`, Output: "in 3h 20m"},
			}},
		{Name: "age", Namespace: "time", Signature: "age TIME NOW", Fn: age,
			Doc:      "the bare span between TIME and NOW: 2m, 1h 5m, 2d 4h",
			Examples: []Example{{Data: data, Template: `{{ age .started .now }}`, Output: "5m"}}},
		{Name: "isoTime", Namespace: "time", Signature: "isoTime TIME", Fn: isoTime,
			Doc:      "TIME in RFC 3339, in UTC",
			Examples: []Example{{Data: `{"t": "2026-01-02T16:04:05+01:00"}`, Template: `{{ isoTime .t }}`, Output: "2026-01-02T15:04:05Z"}}},
		{Name: "date", Namespace: "time", Signature: "date LAYOUT TIME", Fn: formatDate,
			Doc:      "sprig's date for a time from the input: a Go layout, in the time's own offset, never the machine's zone",
			Examples: []Example{{Data: `{"t": "2026-01-02T16:04:05+01:00"}`, Template: `{{ date "2006-01-02 15:04" .t }}`, Output: "2026-01-02 16:04"}}},
	}
}

func parseTime(v any) (time.Time, error) {
	switch t := v.(type) {
	case time.Time:
		return t, nil
	case string:
		for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02"} {
			if p, err := time.Parse(layout, t); err == nil {
				return p, nil
			}
		}
		return time.Time{}, fmt.Errorf("%q is not an ISO 8601 time such as 2026-01-02T15:04:05Z", t)
	}
	return time.Time{}, fmt.Errorf("expected an ISO 8601 time string, got %s", input.TypeName(v))
}

func between(t, now any) (time.Duration, error) {
	a, err := parseTime(t)
	if err != nil {
		return 0, err
	}
	b, err := parseTime(now)
	if err != nil {
		return 0, err
	}
	return b.Sub(a), nil
}

func relativeTime(t, now any) (string, error) {
	d, err := between(t, now)
	if err != nil {
		return "", err
	}
	switch {
	case d >= time.Second:
		return span(d) + " ago", nil
	case d <= -time.Second:
		return "in " + span(-d), nil
	}
	return "just now", nil
}

func age(t, now any) (string, error) {
	d, err := between(t, now)
	if err != nil {
		return "", err
	}
	if d < 0 {
		d = -d
	}
	return span(d), nil
}

// span writes a duration in at most two units, rounded down: 45s, 5m, 3h 20m, 2d 4h.
func span(d time.Duration) string {
	s := int64(d / time.Second)
	switch {
	case s < 60:
		return strconv.FormatInt(s, 10) + "s"
	case s < 3600:
		return strconv.FormatInt(s/60, 10) + "m"
	case s < 86400:
		return twoUnits(s/3600, "h", s%3600/60, "m")
	}
	return twoUnits(s/86400, "d", s%86400/3600, "h")
}

func twoUnits(a int64, ua string, b int64, ub string) string {
	out := strconv.FormatInt(a, 10) + ua
	if b > 0 {
		out += " " + strconv.FormatInt(b, 10) + ub
	}
	return out
}

func isoTime(v any) (string, error) {
	t, err := parseTime(v)
	if err != nil {
		return "", err
	}
	return t.UTC().Format(time.RFC3339), nil
}

func formatDate(layout string, v any) (string, error) {
	t, err := parseTime(v)
	if err != nil {
		return "", err
	}
	return t.Format(layout), nil
}
