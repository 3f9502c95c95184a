package clienttest

import (
	"flag"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/annotated-rocketmq/rocketmq-go/mq/clock"
)

// stressFlag is the -stress flag of every test binary that uses this package (go test
// ./mq/client/consumer -run Stress -stress 60s): one definition for all stress tests.
var stressFlag = flag.Duration("stress", 0, "how long the consumer stress tests churn (default a few seconds; $STRESS alike)")

// StressDuration is how long a stress test churns: the -stress flag when set, else $STRESS
// ("60s"), else short — the few seconds the default run affords. A $STRESS that does not
// parse fails the test rather than running the short version silently.
func StressDuration(t testing.TB, short time.Duration) time.Duration {
	t.Helper()
	if *stressFlag > 0 {
		return *stressFlag
	}
	if v := os.Getenv("STRESS"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			t.Fatalf("STRESS=%q: want a positive duration such as 60s", v)
		}
		return d
	}
	return short
}

// StressRand returns the stress test's random source and logs its seed: $STRESS_SEED when set
// (to replay a failed run), else one taken from the clock.
func StressRand(t testing.TB) *rand.Rand {
	t.Helper()
	var wall clock.System
	seed := uint64(wall.Now().UnixNano())
	if v := os.Getenv("STRESS_SEED"); v != "" {
		s, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			t.Fatalf("STRESS_SEED=%q: %v", v, err)
		}
		seed = s
	}
	t.Logf("stress seed %d (replay with STRESS_SEED=%d)", seed, seed)
	return rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
}

// The sizes the consumer stress runs share: five members, and consumers that hold at most
// StressPullThresholdForQueue+StressPullBatchSize pulled messages of a queue (pulling pauses at
// the threshold; one pull in flight adds a batch).
const (
	StressMembers               = 5
	StressPullThresholdForQueue = 64
	StressPullBatchSize         = 16
)

// DuplicateBound is how many duplicate deliveries at-least-once allows the churn so far over
// queues queues. A message comes twice when its queue changed owner before the previous
// owner's progress reached the broker: the new owner starts at the broker's committed offset
// (RebalancePushImpl#computePullFromWhere) while the previous owner goes on until its own
// rebalance drops the queue (persisting its offset then, as on shutdown), and a message whose
// consumption was still running when its queue was dropped is not committed at all. The
// previous owner commits its offset with every pull (the commitOffset flag) and every persist
// pass, so the gap is what it had pulled and not committed: at most
// StressPullThresholdForQueue+StressPullBatchSize messages per queue and handover. A membership
// change can move every queue: (starts+stops) × queues × (threshold+batch). RocketMQ's
// contract is the same: consumption is at least once, and a rebalance may deliver a message
// again.
func (c *Churn) DuplicateBound(queues int) int {
	return (c.Starts + c.Stops) * queues * (StressPullThresholdForQueue + StressPullBatchSize)
}

// Churn starts and stops the members of a group at random: slot i holds at most one running
// member, started by Start(i) and stopped by the function it returned. Not safe for concurrent
// use: one goroutine (the test's) drives it.
type Churn struct {
	// Start starts a member in slot and returns how to stop it.
	Start func(slot int) (stop func())
	// Starts and Stops count the members started and stopped so far.
	Starts, Stops int
	running       []func()
}

// NewChurn returns a churn of slots slots, none running.
func NewChurn(slots int, start func(slot int) (stop func())) *Churn {
	return &Churn{Start: start, running: make([]func(), slots)}
}

// Toggle stops slot's member if it runs, else starts one.
func (c *Churn) Toggle(slot int) {
	if stop := c.running[slot]; stop != nil {
		c.running[slot] = nil
		stop()
		c.Stops++
		return
	}
	c.running[slot] = c.Start(slot)
	c.Starts++
}

// Run toggles a random slot every gap (a random pause between minGap and maxGap) until d has
// passed, then makes sure at least one member runs.
func (c *Churn) Run(rng *rand.Rand, d, minGap, maxGap time.Duration) {
	var wall clock.System
	for end := wall.Now().Add(d); wall.Now().Before(end); {
		c.Toggle(rng.IntN(len(c.running)))
		time.Sleep(minGap + time.Duration(rng.Int64N(int64(maxGap-minGap)+1)))
	}
	if len(c.Running()) == 0 {
		c.Toggle(0)
	}
}

// Running returns the slots whose member runs, in order.
func (c *Churn) Running() []int {
	var out []int
	for i, stop := range c.running {
		if stop != nil {
			out = append(out, i)
		}
	}
	return out
}

// StopAll stops every running member.
func (c *Churn) StopAll() {
	for i := range c.running {
		if c.running[i] != nil {
			c.Toggle(i)
		}
	}
}

// Deliveries records which member got which message (by key), from any goroutine. A member
// is one started consumer (a number the test gives it), not a slot: a slot's next member is
// another consumer.
type Deliveries struct {
	mu sync.Mutex
	by map[string][]int // key → the members that got it, in delivery order
}

// Add records that member got the message key.
func (d *Deliveries) Add(member int, key string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.by == nil {
		d.by = map[string][]int{}
	}
	d.by[key] = append(d.by[key], member)
}

// Missing returns how many of keys were not delivered yet.
func (d *Deliveries) Missing(keys []string) int {
	d.mu.Lock()
	defer d.mu.Unlock()
	n := 0
	for _, k := range keys {
		if len(d.by[k]) == 0 {
			n++
		}
	}
	return n
}

// Duplicates returns the deliveries beyond the first of each message, and how many of them
// went to the member that had already got it (the rest went to another member: a queue that
// changed owner before its offset was committed).
func (d *Deliveries) Duplicates() (dups, sameMember int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, members := range d.by {
		dups += len(members) - 1
		seen := map[int]bool{}
		for _, m := range members {
			if seen[m] {
				sameMember++
			}
			seen[m] = true
		}
	}
	return dups, sameMember
}

// Unexpected returns the delivered keys not in keys (a message nobody sent).
func (d *Deliveries) Unexpected(keys []string) []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	want := make(map[string]bool, len(keys))
	for _, k := range keys {
		want[k] = true
	}
	var out []string
	for k := range d.by {
		if !want[k] {
			out = append(out, k)
		}
	}
	return out
}

// Owners returns, for the messages keys, the members that got messages of each queue
// (queueOf names a key's queue), each member once, in order. After a stable run every queue
// has one owner: this is how a test sees which member owns a queue when the member is a
// client it cannot look into.
func (d *Deliveries) Owners(keys []string, queueOf func(key string) int32) map[int32][]int {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := map[int32][]int{}
	for _, k := range keys {
		q := queueOf(k)
		for _, m := range d.by[k] {
			if !slices.Contains(out[q], m) {
				out[q] = append(out[q], m)
			}
		}
	}
	for q := range out {
		slices.Sort(out[q])
	}
	return out
}
