package command

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/annotated-rocketmq/rocketmq-go/mq/admin"
	"github.com/annotated-rocketmq/rocketmq-go/mq/client"
	"github.com/annotated-rocketmq/rocketmq-go/mq/client/producer"
	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
)

// toolsConsumerGroup is the group mqadmin pulls as. Java: MixAll#TOOLS_CONSUMER_GROUP.
const toolsConsumerGroup = "TOOLS_CONSUMER"

// printMessageDetail prints one message field by field, as QueryMsgByIdSubCommand#printMsg
// does ("%-20s %s" per line; the fields are admin.MessageFields).
//
// Deviation: the body is printed (as text) instead of being written to a file under
// /tmp/rocketmq/msgbodys.
func printMessageDetail(w io.Writer, m *primitive.MessageExt) {
	for _, f := range admin.MessageFields(m) {
		fmt.Fprintf(w, "%-20s %s\n", f.Name, f.Value)
	}
}

// queryMsgById mirrors QueryMsgByIdSubCommand: a message by its offsetMsgId (the broker's id,
// which names its store host and CommitLog offset), or, with -t, by its UNIQ_KEY (the
// producer's msgId) through the index.
var queryMsgByIdCmd = &SubCommand{Name: "queryMsgById", Desc: "Query Message by Id"}

func init() {
	var i, t *string
	queryMsgByIdCmd.options = func(o *Options) {
		i = o.Str("i", "msgId", "Message Id (offsetMsgId, or the UNIQ_KEY msgId with -t)", true, "")
		t = o.Str("t", "topic", "topic name (to look a UNIQ_KEY msgId up)", false, "")
	}
	queryMsgByIdCmd.run = func(r *Run) error {
		for _, id := range strings.Split(*i, ",") {
			m, err := r.Admin.ViewMessageByID(r.Ctx, strings.TrimSpace(*t), strings.TrimSpace(id))
			if err != nil {
				return err
			}
			printMessageDetail(r.Out, m)
		}
		return nil
	}
}

// queryMsgByKey mirrors QueryMsgByKeySubCommand: the messages of a topic with a key, through
// the brokers' index.
var queryMsgByKeyCmd = &SubCommand{Name: "queryMsgByKey", Desc: "Query Message by Key"}

func init() {
	var t, k *string
	var b, e, c *int64
	queryMsgByKeyCmd.options = func(o *Options) {
		t = o.Str("t", "topic", "topic name", true, "")
		k = o.Str("k", "msgKey", "Message Key", true, "")
		b = o.Num("b", "beginTimestamp", "Begin timestamp(ms). default:0, eg:1676730526212", false, 0)
		e = o.Num("e", "endTimestamp", "End timestamp(ms). default:Long.MAX_VALUE", false, int64(^uint64(0)>>1))
		c = o.Num("c", "maxNum", "The maximum number of messages returned by the query, default:64", false, 64)
	}
	queryMsgByKeyCmd.run = func(r *Run) error {
		msgs, err := r.Admin.QueryMessage(r.Ctx, strings.TrimSpace(*t), strings.TrimSpace(*k), int(*c), *b, *e, false)
		if err != nil {
			return err
		}
		tbl := table(r.Out, "#Message ID", "#QID", "#Offset")
		for _, m := range msgs {
			row(tbl, m.MsgID, m.QueueID, m.QueueOffset)
		}
		return tbl.Render()
	}
}

// brokerAddrByName returns the master address of brokerName in topic's route.
func brokerAddrByName(r *Run, topic, brokerName string) (string, error) {
	route, err := r.Admin.ExamineTopicRouteInfo(r.Ctx, topic)
	if err != nil {
		return "", err
	}
	for _, bd := range route.BrokerDatas {
		if bd.BrokerName == brokerName && bd.MasterAddr() != "" {
			return bd.MasterAddr(), nil
		}
	}
	return "", fmt.Errorf("broker %s is not in the route of topic %s", brokerName, topic)
}

// queryMsgByOffset mirrors QueryMsgByOffsetSubCommand: the message at a queue offset.
var queryMsgByOffsetCmd = &SubCommand{Name: "queryMsgByOffset", Desc: "Query Message by offset"}

func init() {
	var t, b *string
	var i, o *int64
	queryMsgByOffsetCmd.options = func(opts *Options) {
		t = opts.Str("t", "topic", "topic name", true, "")
		b = opts.Str("b", "brokerName", "Broker Name", true, "")
		i = opts.Num("i", "queueId", "Queue Id", true, 0)
		o = opts.Num("o", "offset", "Queue Offset", true, 0)
	}
	queryMsgByOffsetCmd.run = func(r *Run) error {
		off := *o
		mq := primitive.MessageQueue{Topic: strings.TrimSpace(*t), BrokerName: strings.TrimSpace(*b), QueueID: int32(*i)}
		addr, err := brokerAddrByName(r, mq.Topic, mq.BrokerName)
		if err != nil {
			return err
		}
		msgs, _, err := r.Admin.PullMessages(r.Ctx, addr, toolsConsumerGroup, mq, "*", off, 1)
		if err != nil {
			return err
		}
		if len(msgs) == 0 {
			return fmt.Errorf("no message at offset %d of %s", off, mq)
		}
		printMessageDetail(r.Out, msgs[0])
		return nil
	}
}

// pullRange prints the messages of each queue from its start offset up to (not including) its
// end offset, at most count in all (count <= 0: no limit), one line each:
// "MSGID: <msgId> QID: <queueId> OFFSET: <queueOffset> KEYS: [..] TAGS: [..] BODY: <body>".
func pullRange(r *Run, addrs map[string]string, ranges map[primitive.MessageQueue][2]int64, sub string, printBody bool, count int) (int, error) {
	printed := 0
	for _, mq := range protocol.SortedQueues(ranges) {
		from, to := ranges[mq][0], ranges[mq][1]
		fmt.Fprintf(r.Out, "minOffset=%d, maxOffset=%d, %s\n", from, to, mq)
		for off := from; off < to; {
			msgs, next, err := r.Admin.PullMessages(r.Ctx, addrs[mq.BrokerName], toolsConsumerGroup, mq, sub, off, 32)
			if err != nil {
				return printed, err
			}
			for _, m := range msgs {
				if m.QueueOffset >= to || count > 0 && printed >= count {
					break
				}
				body := "NOT PRINT BODY"
				if printBody {
					body = string(m.Body)
				}
				fmt.Fprintf(r.Out, "MSGID: %s QID: %d OFFSET: %d KEYS: [%s] TAGS: [%s] BODY: %s\n",
					m.MsgID, m.QueueID, m.QueueOffset, m.Keys(), m.Tags(), body)
				printed++
			}
			if next <= off || count > 0 && printed >= count {
				break
			}
			off = next
		}
	}
	return printed, nil
}

// queueRanges returns, for every queue of topic (or only brokerName's queue queueID when
// brokerName is set), the offsets [min, max) narrowed by the begin and end store times (ms,
// 0 = open), and the master address of each broker.
func queueRanges(r *Run, topic, brokerName string, queueID int32, begin, end int64) (map[primitive.MessageQueue][2]int64, map[string]string, error) {
	stats, err := r.Admin.ExamineTopicStats(r.Ctx, topic)
	if err != nil {
		return nil, nil, err
	}
	route, err := r.Admin.ExamineTopicRouteInfo(r.Ctx, topic)
	if err != nil {
		return nil, nil, err
	}
	addrs := map[string]string{}
	for _, bd := range route.BrokerDatas {
		addrs[bd.BrokerName] = bd.MasterAddr()
	}
	ranges := map[primitive.MessageQueue][2]int64{}
	for mq, o := range stats.OffsetTable {
		if brokerName != "" && (mq.BrokerName != brokerName || mq.QueueID != queueID) {
			continue
		}
		from, to := o.MinOffset, o.MaxOffset
		if begin > 0 {
			if from, err = r.Admin.API().SearchOffset(r.Ctx, addrs[mq.BrokerName], mq, begin); err != nil {
				return nil, nil, err
			}
		}
		if end > 0 {
			if to, err = r.Admin.API().SearchOffset(r.Ctx, addrs[mq.BrokerName], mq, end); err != nil {
				return nil, nil, err
			}
		}
		ranges[mq] = [2]int64{from, to}
	}
	if brokerName != "" && len(ranges) == 0 {
		return nil, nil, fmt.Errorf("no queue %d of broker %s in topic %s", queueID, brokerName, topic)
	}
	return ranges, addrs, nil
}

// printMsg mirrors PrintMessageSubCommand: every message of a topic, queue by queue, optionally
// between two store times and filtered by tag.
var printMsgCmd = &SubCommand{Name: "printMsg", Desc: "Print Message Detail"}

func init() {
	var t, s *string
	var d *bool
	var b, e *int64
	printMsgCmd.options = func(o *Options) {
		t = o.Str("t", "topic", "topic name", true, "")
		s = o.Str("s", "subExpression", "Subscribe Expression(eg: TagA || TagB)", false, "*")
		b = o.Num("b", "beginTimestamp", "Begin timestamp(ms)", false, 0)
		e = o.Num("e", "endTimestamp", "End timestamp(ms)", false, 0)
		d = o.TrueFalse("d", "printBody", "print body", true)
	}
	printMsgCmd.run = func(r *Run) error {
		ranges, addrs, err := queueRanges(r, strings.TrimSpace(*t), "", 0, *b, *e)
		if err != nil {
			return err
		}
		_, err = pullRange(r, addrs, ranges, strings.TrimSpace(*s), *d, 0)
		return err
	}
}

// consumeMessage mirrors ConsumeMessageCommand: up to -c messages of a topic (or of one queue
// from an offset), printed as printMsg prints them. It commits no offset.
var consumeMessageCmd = &SubCommand{Name: "consumeMessage", Desc: "Consume message"}

func init() {
	var t, b, g *string
	var i, o, s, e, c *int64
	consumeMessageCmd.options = func(opts *Options) {
		t = opts.Str("t", "topic", "Topic name", true, "")
		b = opts.Str("b", "brokerName", "Broker name", false, "")
		i = opts.Num("i", "queueId", "Queue Id", false, 0)
		o = opts.Num("o", "offset", "Queue offset", false, 0)
		g = opts.Str("g", "consumerGroup", "Consumer group name (unused: nothing is committed)", false, toolsConsumerGroup)
		s = opts.Num("s", "beginTimestamp", "Begin timestamp(ms)", false, 0)
		e = opts.Num("e", "endTimestamp", "End timestamp(ms)", false, 0)
		c = opts.Num("c", "MessageNumber", "Number of message to be consumed", false, 128)
	}
	consumeMessageCmd.run = func(r *Run) error {
		_ = g
		if r.Opts.Set("o") && *b == "" {
			return usageError("-o needs -b and -i")
		}
		ranges, addrs, err := queueRanges(r, strings.TrimSpace(*t), strings.TrimSpace(*b), int32(*i), *s, *e)
		if err != nil {
			return err
		}
		for mq, rg := range ranges {
			ranges[mq] = [2]int64{max(*o, rg[0]), rg[1]}
		}
		n, err := pullRange(r, addrs, ranges, "*", true, int(*c))
		if err != nil {
			return err
		}
		fmt.Fprintf(r.Out, "Consume ok, %d messages\n", n)
		return nil
	}
}

// sendMessage mirrors SendMessageCommand: one message, to a queue the producer picks or to
// -b's queue -i.
var sendMessageCmd = &SubCommand{Name: "sendMessage", Desc: "Send a message"}

func init() {
	var t, p, k, c, b *string
	var i *int64
	sendMessageCmd.options = func(o *Options) {
		t = o.Str("t", "topic", "Topic name", true, "")
		p = o.Str("p", "body", "UTF-8 string format of the message body", true, "")
		k = o.Str("k", "key", "Message keys", false, "")
		c = o.Str("c", "tags", "Message tags", false, "")
		b = o.Str("b", "broker", "Send message to target broker", false, "")
		i = o.Num("i", "qid", "Send message to target queue", false, 0)
	}
	sendMessageCmd.run = func(r *Run) error {
		msg := &primitive.Message{Topic: strings.TrimSpace(*t), Body: []byte(*p), Properties: map[string]string{}}
		if *k != "" {
			msg.Properties[primitive.PropertyKeys] = *k
		}
		if *c != "" {
			msg.Properties[primitive.PropertyTags] = *c
		}
		toQueue := *b != "" || r.Opts.Set("i")
		if toQueue && (*b == "" || !r.Opts.Set("i")) {
			return usageError("-b and -i go together")
		}
		cfg := producer.DefaultConfig(fmt.Sprintf("PID_MQADMIN_%d", os.Getpid()))
		cfg.NamesrvAddr = strings.Join(r.Admin.NamesrvAddrs(), ";")
		cfg.InstanceName = fmt.Sprintf("mqadmin-%d-%d", os.Getpid(), r.Clock.Now().UnixNano())
		cfg.Options = client.Options{DisableScheduledTasks: true}
		prod := producer.NewDefaultMQProducer(cfg)
		if err := prod.Start(); err != nil {
			return err
		}
		defer prod.Shutdown()
		var res *client.SendResult
		var err error
		if toQueue {
			res, err = prod.SendToQueue(r.Ctx, msg, primitive.MessageQueue{Topic: msg.Topic, BrokerName: strings.TrimSpace(*b), QueueID: int32(*i)})
			if err != nil {
				return err
			}
		} else if res, err = prod.Send(r.Ctx, msg); err != nil {
			return err
		}
		tbl := table(r.Out, "#Broker Name", "#QID", "#Send Result", "#MsgId")
		row(tbl, res.MessageQueue.BrokerName, res.MessageQueue.QueueID, res.SendStatus, res.MsgID)
		return tbl.Render()
	}
}
