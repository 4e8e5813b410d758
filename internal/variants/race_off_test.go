//go:build !race

package variants_test

const raceDetector = false
