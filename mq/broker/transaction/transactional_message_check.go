//go:build !ex_ch08

package transaction

import (
	"log/slog"
	"time"

	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/store"
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
	s.checkMu.Lock()
	defer s.checkMu.Unlock()
	b := s.bridge
	var res CheckResult
	const queueID = 0 // the one half queue (ParseHalfMessageInner)
	halfOffset := b.FetchConsumeOffset(HalfTopic, queueID)
	opOffset := b.FetchConsumeOffset(OpHalfTopic, queueID)
	if tr := b.d.Tracer; tr.Enabled() {
		tr.Step("TransactionalMessageServiceImpl#check", slog.String("topic", HalfTopic), slog.Int("queueId", queueID),
			slog.Int64("halfOffset", int64(halfOffset)), slog.Int64("opOffset", int64(opOffset)))
	}
	if halfOffset < 0 || opOffset < 0 {
		b.d.Log.Error("transaction check: queue offset illegal", "halfOffset", halfOffset, "opOffset", opOffset)
		return res
	}
	timeout := transactionTimeout.Milliseconds()
	startTime := b.d.Store.Now()
	var doneOpOffset []store.QueueOffset
	removeMap := map[store.QueueOffset]store.QueueOffset{}
	pull, err := s.fillOpRemoveMap(removeMap, queueID, opOffset, halfOffset, &doneOpOffset)
	if err != nil {
		b.d.Log.Error("transaction check: read op queue failed", "opOffset", opOffset, "err", err)
		return res
	}
	var toResolve []*primitive.MessageExt // put back, to be asked about when the pass ends
	getMessageNullCount := 1
	newOffset := halfOffset
	i := halfOffset
	nextOpOffset := pull.nextBeginOffset
	for {
		now := b.d.Store.Now()
		if now-startTime > maxProcessTimeLimit.Milliseconds() {
			b.d.Log.Info("transaction check: queue process time reached max", "limit", maxProcessTimeLimit)
			break
		}
		if opOff, ok := removeMap[i]; ok {
			delete(removeMap, i)
			doneOpOffset = append(doneOpOffset, opOff)
			newOffset = i + 1
			i++
			continue
		}
		half, err := b.GetHalfMessage(queueID, i, 1)
		if err != nil {
			// A record that does not decode: the pass stops here (the next one tries again).
			b.d.Log.Error("transaction check: read half message failed", "halfOffset", i, "err", err)
			break
		}
		var msg *primitive.MessageExt
		if half.status == pullFound && len(half.msgFoundList) > 0 {
			msg = half.msgFoundList[0]
		}
		if msg == nil {
			getMessageNullCount++
			if getMessageNullCount > maxRetryCountWhenHalfNull+1 || half.status == pullNoNewMsg {
				break // nothing more to read
			}
			i = half.nextBeginOffset // a hole (cleaned files): go on where the store says
			newOffset = i
			continue
		}
		if s.needDiscard(msg, transactionCheckMax) || s.needSkip(msg, now) {
			listener.ResolveDiscardMsg(msg)
			res.Discarded++
			newOffset = i + 1
			i++
			continue
		}
		if msg.StoreTimestamp >= startTime {
			break // stored after this pass began: the next pass sees it
		}
		age := now - msg.BornTimestamp
		immunity := timeout
		if v := msg.GetProperty(primitive.PropertyCheckImmunityTimeInSeconds); v != "" {
			immunity = immunityTime(v, timeout)
			if age < immunity {
				if s.checkPrepareQueueOffset(removeMap, &doneOpOffset, msg) {
					newOffset = i + 1
					i++
					continue
				}
			}
		} else if age >= 0 && age < immunity {
			break // too young to check; so is every later one
		}
		var opLast *primitive.MessageExt
		if pull != nil && len(pull.msgFoundList) > 0 {
			opLast = pull.msgFoundList[len(pull.msgFoundList)-1]
		}
		needCheck := (opLast == nil && age > immunity) ||
			(opLast != nil && opLast.BornTimestamp-startTime > timeout) ||
			age <= -1
		if !needCheck {
			// Op messages read so far do not settle this half: read the next batch of them.
			if pull != nil {
				nextOpOffset = pull.nextBeginOffset
			}
			pull, err = s.fillOpRemoveMap(removeMap, queueID, nextOpOffset, halfOffset, &doneOpOffset)
			// Deviation: Java loops here until its 60 s limit when neither read found op
			// messages (nothing can change); we end the pass, the next one starts over.
			if err != nil || (!pull.found() && opLast == nil) {
				break
			}
			continue
		}
		if !s.putBackHalfMsgQueue(msg, i) {
			// Deviation: Java retries the same offset until its 60 s limit; we end the pass
			// (the half offset stays here, so the next pass retries it).
			break
		}
		toResolve = append(toResolve, msg)
		res.Checked++
		newOffset = i + 1
		i++
	}
	if newOffset != halfOffset {
		b.UpdateConsumeOffset(HalfTopic, queueID, newOffset)
	}
	if newOpOffset := calculateOpOffset(doneOpOffset, opOffset); newOpOffset != opOffset {
		b.UpdateConsumeOffset(OpHalfTopic, queueID, newOpOffset)
	}
	for _, m := range toResolve {
		listener.ResolveHalfMsg(m)
	}
	return res
}
