package clienttest

import (
	"fmt"
	"sync"
)

// OrderLedger records the steps of orders as consumers observe them, from any goroutine, and
// checks partition order: step k of an order may be observed only once step k-1 of it has
// been (by any consumer). A step observed again (a redelivery after a rebalance) is fine; a
// step before its predecessor is a violation. Orders and steps are small integers the test
// chooses (order ids, step indexes from 0).
type OrderLedger struct {
	mu         sync.Mutex
	seen       map[int]int // order → highest step observed + 1
	violations []string
}

// Observe records that consumer (a name for messages) observed step of order.
func (l *OrderLedger) Observe(consumer string, order, step int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.seen == nil {
		l.seen = map[int]int{}
	}
	next := l.seen[order]
	switch {
	case step > next:
		l.violations = append(l.violations, fmt.Sprintf("%s observed order %d step %d before step %d", consumer, order, step, next))
	case step == next:
		l.seen[order] = step + 1
	}
}

// Complete reports whether every order in orders has had all steps observed.
func (l *OrderLedger) Complete(orders []int, steps int) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, o := range orders {
		if l.seen[o] < steps {
			return false
		}
	}
	return true
}

// Violations returns the out-of-order observations so far.
func (l *OrderLedger) Violations() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.violations...)
}
