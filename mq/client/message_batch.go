package client

import (
	"encoding/binary"
	"fmt"
	"strconv"

	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
)

// MessageBatch is several messages of one topic sent as one SEND_BATCH_MESSAGE (320): the
// envelope carries the topic and the WAIT property of the first message, the body is every
// message encoded by EncodeMessages.
// Mirrors org.apache.rocketmq.common.message.MessageBatch.
type MessageBatch struct {
	// Message is the envelope: Topic, and Properties {WAIT: "true"|"false"}.
	primitive.Message
	// Messages are the batch's messages, in order.
	Messages []*primitive.Message
}

// GenerateFromList checks and wraps msgs: at least one message; no delay level; no %RETRY%
// topic; every topic and every WAIT flag equal to the first's. Errors wrap ErrMessageIllegal.
// Java: MessageBatch#generateFromList.
func GenerateFromList(msgs []*primitive.Message) (*MessageBatch, error) {
	if len(msgs) == 0 {
		return nil, fmt.Errorf("%w: empty batch", ErrMessageIllegal)
	}
	first := msgs[0]
	for i, m := range msgs {
		if m == nil {
			return nil, fmt.Errorf("%w: batch message %d is nil", ErrMessageIllegal, i)
		}
		if m.DelayTimeLevel() > 0 {
			return nil, fmt.Errorf("%w: TimeDelayLevel is not supported for batching", ErrMessageIllegal)
		}
		if protocol.IsRetryTopic(m.Topic) {
			return nil, fmt.Errorf("%w: Retry Group is not supported for batching", ErrMessageIllegal)
		}
		if m.Topic != first.Topic {
			return nil, fmt.Errorf("%w: The topic of the messages in one batch should be the same", ErrMessageIllegal)
		}
		if m.WaitStoreMsgOK() != first.WaitStoreMsgOK() {
			return nil, fmt.Errorf("%w: The waitStoreMsgOK of the messages in one batch should the same", ErrMessageIllegal)
		}
	}
	b := &MessageBatch{Messages: msgs}
	b.Topic = first.Topic
	b.PutProperty(primitive.PropertyWaitStoreMsgOK, strconv.FormatBool(first.WaitStoreMsgOK()))
	return b, nil
}

// Encode returns the batch body: every message encoded by AppendEncodedMessage, concatenated.
// Errors wrap ErrMessageIllegal (a properties string over 32767 bytes).
// Java: MessageBatch#encode (MessageDecoder#encodeMessages).
func (b *MessageBatch) Encode() ([]byte, error) {
	size := 0
	for _, m := range b.Messages {
		size += 22 + len(m.Body) + 64
	}
	out := make([]byte, 0, size)
	for _, m := range b.Messages {
		var err error
		if out, err = AppendEncodedMessage(out, m); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// AppendEncodedMessage appends one message of a batch body (big-endian; remoting-protocol.md §6.2):
//
//	+-----------+-----------+---------+--------+------------+------+-------------+------------+
//	| TOTALSIZE | MAGICCODE | BODYCRC | FLAG   | BODYLENGTH | BODY | PROPERTIES  | PROPERTIES |
//	| 4         | 4 (0)     | 4 (0)   | 4      | 4          | n    | LENGTH 2    | p          |
//	+-----------+-----------+---------+--------+------------+------+-------------+------------+
//	TOTALSIZE = 22 + n + p
//
// The broker ignores TOTALSIZE, MAGICCODE and BODYCRC and frames by the two lengths. The body is
// never compressed. A properties string over 32767 bytes is ErrMessageIllegal.
// Java: MessageDecoder#encodeMessage.
func AppendEncodedMessage(dst []byte, m *primitive.Message) ([]byte, error) {
	props := primitive.MarshalProperties(m.Properties)
	if len(props) > 32767 {
		return dst, fmt.Errorf("%w: properties size of message exceeded, properties size: %d, maxSize: 32767", ErrMessageIllegal, len(props))
	}
	total := 22 + len(m.Body) + len(props)
	dst = binary.BigEndian.AppendUint32(dst, uint32(total))
	dst = binary.BigEndian.AppendUint32(dst, 0) // MAGICCODE
	dst = binary.BigEndian.AppendUint32(dst, 0) // BODYCRC
	dst = binary.BigEndian.AppendUint32(dst, uint32(m.Flag))
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(m.Body)))
	dst = append(dst, m.Body...)
	dst = binary.BigEndian.AppendUint16(dst, uint16(len(props)))
	dst = append(dst, props...)
	return dst, nil
}
