package transaction

import (
	"strconv"
	"sync"

	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
)

// decidedTransactionsMax is how many decisions a broker remembers (about 100 bytes each).
const decidedTransactionsMax = 1 << 16

// decidedTransactions remembers the transactions this broker decided since it started — the
// last decidedTransactionsMax of them — by their UNIQ_KEY (with PGROUP and REAL_TOPIC), which
// every copy of a half message keeps. Without a UNIQ_KEY a half message is known by its
// CommitLog offset alone.
//
// Deviation: RocketMQ stores every commit it is sent. A transaction can be ended twice: the
// producer's own END_TRANSACTION arriving after the check put the half message back and asked
// (a local transaction slower than transactionTimeOut), answered by a check-back too; or the
// same END_TRANSACTION twice. Each copy passes checkPrepareMessage, so RocketMQ stores the
// message twice. Here the first decision wins and a later one only writes its op message. The
// memory is lost on restart, where RocketMQ's behaviour returns.
//
// A decision is pending from claim until settle: a second END_TRANSACTION for the transaction
// waits for it, so it never marks decided a transaction whose first decision failed to store.
// mu guards keys, ring and next; ring[i] is the key claimed i-th (mod len), forgotten when reused.
type decidedTransactions struct {
	mu   sync.Mutex
	keys map[string]*decision
	ring []string
	next int
}

// decision is one claimed transaction: done closes when it is settled; stored says whether the
// decision was stored (read after done).
type decision struct {
	slot   int
	done   chan struct{}
	stored bool
}

func newDecidedTransactions(max int) *decidedTransactions {
	return &decidedTransactions{keys: make(map[string]*decision), ring: make([]string, max)}
}

// decisionKey is m's transaction: its producer group, real topic and UNIQ_KEY (so a key one
// client repeats cannot stand for another group's transaction), else "@" and its CommitLog offset.
func decisionKey(m *primitive.MessageExt) string {
	if k := m.GetProperty(primitive.PropertyUniqClientMessageIDKeyIdx); k != "" {
		return m.GetProperty(primitive.PropertyProducerGroup) + "\x00" + m.GetProperty(primitive.PropertyRealTopic) + "\x00" + k
	}
	return "@" + strconv.FormatInt(m.CommitLogOffset, 10)
}

// claim makes the caller the one to decide m's transaction (true), or reports that it is
// decided already (false). While another caller's decision is pending it waits for it: decided,
// false; not stored, the claim is tried again. A true claim must be settled.
func (d *decidedTransactions) claim(m *primitive.MessageExt) bool {
	k := decisionKey(m)
	for {
		d.mu.Lock()
		e, ok := d.keys[k]
		if !ok {
			if old := d.ring[d.next]; old != "" && d.keys[old] != nil && d.keys[old].slot == d.next {
				delete(d.keys, old)
			}
			d.ring[d.next] = k
			d.keys[k] = &decision{slot: d.next, done: make(chan struct{})}
			d.next = (d.next + 1) % len(d.ring)
			d.mu.Unlock()
			return true
		}
		d.mu.Unlock()
		<-e.done
		if e.stored {
			return false
		}
	}
}

// settle ends the caller's claim of m's transaction: stored, it stays decided; not stored, it
// is forgotten, so a later END_TRANSACTION may decide it.
func (d *decidedTransactions) settle(m *primitive.MessageExt, stored bool) {
	k := decisionKey(m)
	d.mu.Lock()
	defer d.mu.Unlock()
	e, ok := d.keys[k]
	if !ok {
		return
	}
	select {
	case <-e.done:
		return // settled already
	default:
	}
	e.stored = stored
	if !stored {
		delete(d.keys, k)
	}
	close(e.done)
}
