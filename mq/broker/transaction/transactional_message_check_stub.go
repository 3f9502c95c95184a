//go:build ex_ch08

package transaction

import (
	"github.com/annotated-rocketmq/rocketmq-go/mq/internal/exercise"

	"time"
)

// Check runs one pass over the half queue: it reads the op messages from the SysGroup's op
// offset (fillOpRemoveMap) and walks the half messages from the SysGroup's half offset. A half
// message with an op message is decided and skipped; one checked transactionCheckMax times
// already, or older than fileReservedTime, is discarded; one stored after the pass began, or
// younger than its immunity (CHECK_IMMUNITY_TIME_IN_SECONDS, else transactionTimeout), ends
// the pass; any other is put back at the queue's end with TRANSACTION_CHECK_TIMES + 1
// (putBackHalfMsgQueue) and handed to the listener, which asks its producer. Both offsets
// then move past what the pass settled. Times are the store's clock (ms).
// Java: TransactionalMessageServiceImpl#check.
//
// Deviation: Java hands each half message to the listener as it goes, whose thread pool sends
// the check-back while the pass goes on; we hand them over when the pass has updated its
// offsets, in queue order. Either way the pass never waits for a producer; here, in addition,
// the pass's own steps all come before any producer's answer, so a traced pass reads in order.
func (s *TransactionalMessageServiceImpl) Check(transactionTimeout time.Duration, transactionCheckMax int, listener CheckListener) CheckResult {
	// Hint: hold s.checkMu for the pass. Read the SysGroup's offsets of the half queue (HalfTopic,
	// queue 0) and the op queue (OpHalfTopic) with s.bridge.FetchConsumeOffset, log the step
	// "TransactionalMessageServiceImpl#check", and fill the op map: s.fillOpRemoveMap(removeMap,
	// 0, opOffset, halfOffset, &doneOpOffset) maps each decided half offset to its op offset.
	// Then walk the half queue from halfOffset: an offset in removeMap is decided (skip it, its
	// op offset is done); s.needDiscard / s.needSkip discard (Discarded++, the listener's
	// resolveDiscardMsg); a message stored after the pass began or younger than its immunity
	// (immunityTime) ends the pass; any other is put back (s.putBackHalfMsgQueue) and, once the
	// offsets are updated, handed to the listener (Checked++). Read more op messages when the map
	// runs out; finally move both offsets (s.bridge.UpdateConsumeOffset; the op offset by
	// calculateOpOffset).
	panic(exercise.NotImplemented("ch08", "tutorial/ch08-transaction.md §TransactionalMessageServiceImpl#check",
		"write TransactionalMessageServiceImpl.Check (mq/broker/transaction/transactional_message_check_stub.go): one pass over the half queue against the op-queue map"))
}
