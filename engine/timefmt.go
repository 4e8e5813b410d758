package engine

import (
	"fmt"
	"strconv"
	"time"
)

// Templates never read the clock: every time they show is computed from times
// in the input, usually against the input's own "now".

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
	return time.Time{}, fmt.Errorf("expected an ISO 8601 time string, got %s", typeName(v))
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

// ago says how long before now t was: "30s ago", "5m ago", "in 3h" when t is later.
func ago(t, now any) (string, error) {
	d, err := between(t, now)
	if err != nil {
		return "", err
	}
	return relative(d), nil
}

// until says how long after now t is: "in 3h", "in 2d 4h", "5m ago" when t is past.
func until(t, now any) (string, error) {
	d, err := between(t, now)
	if err != nil {
		return "", err
	}
	return relative(d), nil
}

func relative(d time.Duration) string {
	switch {
	case d >= time.Second:
		return span(d) + " ago"
	case d <= -time.Second:
		return "in " + span(-d)
	}
	return "just now"
}

// age is the bare span between t and now: "2m", "1h 5m".
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

// isoTime normalizes a time to RFC 3339 in UTC: 2026-01-02T15:04:05Z.
func isoTime(v any) (string, error) {
	t, err := parseTime(v)
	if err != nil {
		return "", err
	}
	return t.UTC().Format(time.RFC3339), nil
}

// formatDate formats a time from the input with a Go layout, in the time's own
// offset (never the machine's zone): {{ date "2006-01-02" .now }}.
func formatDate(layout string, v any) (string, error) {
	t, err := parseTime(v)
	if err != nil {
		return "", err
	}
	return t.Format(layout), nil
}
