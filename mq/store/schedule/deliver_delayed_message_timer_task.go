package schedule

import (
	"log/slog"
	"strconv"

	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/store"
)

// DoDeliver runs one pass over every delay level: each level delivers its due messages in
// queue order and stops at the first one not yet due. It returns how many messages were put
// into their real topics. The service's loop runs it every 100 ms; tests and chapters call it
// directly (with ManualServices) after moving the store's clock.
func (s *ScheduleMessageService) DoDeliver() int {
	return s.deliver(func() bool { return false })
}

// deliver is one pass; stopped cuts it short at shutdown (Java's isStarted checks).
func (s *ScheduleMessageService) deliver(stopped func() bool) int {
	s.deliverMu.Lock()
	defer s.deliverMu.Unlock()
	n := 0
	for i := range s.delayLevelTable {
		if stopped() {
			break
		}
		n += s.executeOnTimeup(int32(i+1), stopped)
	}
	return n
}

// correctDeliverTimestamp: a deliver time more than the level's delay in the future can only
// come from a clock that went back (or a changed level table); it is delivered now rather than
// held for that long. Java: DeliverDelayedMessageTimerTask#correctDeliverTimestamp.
func (s *ScheduleMessageService) correctDeliverTimestamp(level int32, now, deliverTimestamp int64) int64 {
	if deliverTimestamp > now+s.delayLevelTable[level-1] {
		return now
	}
	return deliverTimestamp
}

// executeOnTimeup delivers the level's due messages, from its offset up to the first message
// not yet due or the end of SCHEDULE_TOPIC_XXXX queue level-1, advancing the offset after each
// one. A message whose put fails stays the level's next one (retried on the next pass, 100 ms
// later); one that can no longer be read, or whose real topic is the transaction half topic or
// missing, is skipped. Returns the number delivered.
// Java: DeliverDelayedMessageTimerTask#executeOnTimeup (with syncDeliver).
//
// The deliver time is the unit's tagsCode: the CommitLog dispatcher stored the record's store
// time + its level's delay there (CommitLog#checkMessageAndReturnSize), so a changed
// messageDelayLevel does not move messages already parked.
func (s *ScheduleMessageService) executeOnTimeup(level int32, stopped func() bool) int {
	qid := DelayLevel2QueueID(level)
	offset := s.offset(level)
	lo, hi := s.store.GetMinOffsetInQueue(ScheduleTopic, qid), s.store.GetMaxOffsetInQueue(ScheduleTopic, qid)
	if offset < lo || offset > hi {
		// Files deleted or lost under the offset (Java resets to the min/max too).
		corrected := min(max(offset, lo), hi)
		s.log.Error("schedule CQ offset invalid, reset", "delayLevel", level, "offset", offset,
			"cqMinOffset", lo, "cqMaxOffset", hi)
		offset = corrected
		s.updateOffset(level, offset)
	}
	delivered := 0
	for ; offset < hi && !stopped(); offset++ {
		u, ok := s.store.ReadConsumeQueueUnit(ScheduleTopic, qid, offset)
		offsetPy, tagsCode := u.CommitLogOffset, u.TagsCode
		if !ok { // the unit is gone (ConsumeQueue cleaned): nothing to deliver
			s.updateOffset(level, offset+1)
			continue
		}
		now := s.store.Now()
		deliverTs := s.correctDeliverTimestamp(level, now, tagsCode)
		if deliverTs > now {
			break // not yet due: this offset again on the next pass
		}
		msgExt, err := s.store.LookMessageByOffset(offsetPy)
		if err != nil {
			s.log.Warn("delayed message not found, skipped", "delayLevel", level, "offset", offset,
				"commitLogOffset", offsetPy, "err", err)
			s.updateOffset(level, offset+1)
			continue
		}
		inner, ok := s.messageTimeup(msgExt)
		if !ok {
			s.log.Error("delayed message without a valid REAL_TOPIC / REAL_QID, discarded", "delayLevel", level,
				"offset", offset, "commitLogOffset", offsetPy)
			s.updateOffset(level, offset+1)
			continue
		}
		if inner.Topic == transHalfTopic {
			s.log.Error("[BUG] the real topic of a schedule message is the half topic, discarded",
				"delayLevel", level, "offset", offset, "commitLogOffset", offsetPy)
			s.updateOffset(level, offset+1)
			continue
		}
		if !s.deliverMessage(inner, level, offset, msgExt.MsgID) {
			break // put refused: retry this offset on the next pass
		}
		s.updateOffset(level, offset+1)
		delivered++
	}
	return delivered
}

// deliverMessage puts the message back into its real topic and reports whether the store took
// it (PUT_OK). Java: DeliverDelayedMessageTimerTask#deliverMessage (synchronous delivery; the
// asynchronous mode, enableScheduleAsyncDeliver, is not built).
func (s *ScheduleMessageService) deliverMessage(inner *primitive.MessageExtBrokerInner, level int32, offset store.QueueOffset, msgID string) bool {
	if s.tracer.Enabled() {
		s.tracer.Step("ScheduleMessageService#deliverMessage", slog.Int("delayLevel", int(level)),
			slog.Int64("offset", int64(offset)), slog.String("topic", inner.Topic), slog.Int("queueId", int(inner.QueueID)),
			slog.Int("reconsumeTimes", int(inner.ReconsumeTimes)))
	}
	r := s.store.PutMessage(inner)
	if r.PutMessageStatus != store.PutOK {
		s.log.Warn("delayed message put failed, retried later", "delayLevel", level, "offset", offset,
			"topic", inner.Topic, "msgId", msgID, "status", r.PutMessageStatus.String())
		return false
	}
	return true
}

// messageTimeup builds the message to put: topic := REAL_TOPIC, queue := REAL_QID; body, flag,
// sysFlag, born timestamp and host, store host and reconsumeTimes copied; tagsCode recomputed
// from TAGS; WAIT=false and DELAY removed in the properties map (so the put is not delayed
// again). ok is false when REAL_TOPIC or REAL_QID is missing or not a number.
// Java: ScheduleMessageService#messageTimeup.
//
// As in Java, the stored properties string is taken before WAIT and DELAY change: the delivered
// record keeps DELAY (and REAL_TOPIC / REAL_QID) as it had them in SCHEDULE_TOPIC_XXXX, which is
// what a consumer of a delayed message sees from a Java broker.
func (s *ScheduleMessageService) messageTimeup(m *primitive.MessageExt) (*primitive.MessageExtBrokerInner, bool) {
	realTopic := m.GetProperty(primitive.PropertyRealTopic)
	realQID, err := strconv.ParseInt(m.GetProperty(primitive.PropertyRealQueueID), 10, 32)
	if realTopic == "" || err != nil || realQID < 0 {
		return nil, false
	}
	inner := m.CopyToInner(realTopic, int32(realQID))
	props := inner.Properties
	inner.TagsCode = primitive.TagsString2TagsCode(props[primitive.PropertyTags])
	inner.PropertiesString = primitive.MarshalProperties(props)
	props[primitive.PropertyWaitStoreMsgOK] = "false"
	delete(props, primitive.PropertyDelayTimeLevel)
	return inner, true
}
