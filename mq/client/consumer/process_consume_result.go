//go:build !ex_ch05

package consumer

import (
	"log/slog"
	"slices"

	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
)

// processConsumeResult settles a batch: with CONSUME_SUCCESS the messages after AckIndex failed,
// with RECONSUME_LATER all did. In CLUSTERING each failed message is sent back (and retried here
// later if that fails); in BROADCASTING it is dropped. Then the batch leaves the ProcessQueue
// and the offset moves to the smallest offset still held. Java: #processConsumeResult.
func (s *ConsumeMessageConcurrentlyService) processConsumeResult(status ConsumeConcurrentlyStatus, ctx *ConsumeConcurrentlyContext, r *consumeRequest) {
	c := s.c
	ackIndex := ctx.AckIndex
	if status == ConsumeSuccess {
		ackIndex = min(ackIndex, len(r.msgs)-1)
	} else {
		ackIndex = -1
	}
	if c.tr.Enabled() {
		c.tr.Step("ConsumeMessageConcurrentlyService#processConsumeResult", slog.String("status", status.String()),
			slog.Int("ackIndex", ackIndex), slog.Int("messages", len(r.msgs)), slog.String("messageModel", string(c.cfg.MessageModel)))
	}
	remove := r.msgs
	if c.cfg.MessageModel == protocol.Broadcasting {
		for i := ackIndex + 1; i < len(r.msgs); i++ {
			c.log.Warn("BROADCASTING, the message consume failed, drop it", "msgId", r.msgs[i].MsgID)
		}
	} else {
		var failed []*primitive.MessageExt
		for i := ackIndex + 1; i < len(r.msgs); i++ {
			m := r.msgs[i]
			if c.tr.Enabled() {
				c.tr.Step("ConsumeMessageConcurrentlyService#sendMessageBack", slog.Int64("queueOffset", m.QueueOffset),
					slog.Int64("commitLogOffset", m.CommitLogOffset), slog.Int("reconsumeTimes", int(m.ReconsumeTimes)),
					slog.Int("delayLevel", int(ctx.DelayLevelWhenNextConsume)))
			}
			err := c.sendMessageBack(m, ctx.DelayLevelWhenNextConsume, r.mq.BrokerName)
			if err != nil {
				c.log.Warn("sendMessageBack failed, consume it again later", "msgId", m.MsgID, "err", err)
				m.ReconsumeTimes++
				failed = append(failed, m)
			}
		}
		if len(failed) > 0 {
			remove = make([]*primitive.MessageExt, 0, len(r.msgs)-len(failed))
			for _, m := range r.msgs {
				if !slices.Contains(failed, m) {
					remove = append(remove, m)
				}
			}
			s.submitConsumeRequestLater(&consumeRequest{msgs: failed, pq: r.pq, mq: r.mq})
		}
	}
	offset := r.pq.RemoveMessage(remove)
	if c.tr.Enabled() {
		c.tr.Step("ConsumeMessageConcurrentlyService#removeMessage", slog.String("topic", r.mq.Topic), slog.Int("queueId", int(r.mq.QueueID)),
			slog.String("removed", offsetsOf(remove)), slog.Int64("offset", offset), slog.Int64("stillCached", r.pq.MsgCount()))
	}
	if offset >= 0 && !r.pq.Dropped() {
		c.offsets.UpdateOffset(r.mq, offset, true)
	}
}
