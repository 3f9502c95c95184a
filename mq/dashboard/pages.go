package dashboard

import (
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/annotated-rocketmq/rocketmq-go/mq/admin"
	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
)

// badRequest is a page error the visitor caused (a missing or malformed parameter): 400.
type badRequest string

func (b badRequest) Error() string { return string(b) }

// notFound is a page error for a topic or group no broker serves: 404.
type notFound string

func (n notFound) Error() string { return string(n) }

// page adapts a page function to a handler: it renders the template the function names with
// its data, or the error page (400 for a badRequest, 404 for a notFound, 502 when the name
// server or a broker failed or refused, with the remark).
func (d *Dashboard) page(fn func(r *http.Request) (string, any, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		name, data, err := fn(r)
		if err != nil {
			code := http.StatusBadGateway
			switch err.(type) {
			case badRequest:
				code = http.StatusBadRequest
			case notFound:
				code = http.StatusNotFound
			}
			d.render(w, code, "error", errorData{Title: "Error", Message: err.Error()})
			return
		}
		d.render(w, http.StatusOK, name, data)
	}
}

type errorData struct{ Title, Message string }

// brokerRow is one broker of the cluster page: RocketMQ's clusterList columns, plus its role,
// CommitLog end, dispatch lag and, for a slave, how many bytes it is behind its master.
type brokerRow struct {
	Cluster, BrokerName, Addr, Role, Version string
	BrokerID                                 int64
	PutTPS, GetTPS                           string
	PutTotal, GetTotal                       string
	DiskRatio                                string
	CommitLogMaxOffset                       string
	DispatchBehindBytes                      string
	ReplicationLag                           string // slaves: master's commitLogMaxOffset − the slave's, bytes
	Err                                      string
}

// clusterPage lists every broker of every cluster with its runtime figures
// (GET_BROKER_CLUSTER_INFO, then GET_BROKER_RUNTIME_INFO per broker).
func (d *Dashboard) clusterPage(r *http.Request) (string, any, error) {
	ci, err := d.admin.ExamineBrokerClusterInfo(r.Context())
	if err != nil {
		return "", nil, err
	}
	var rows []brokerRow
	for _, cluster := range slices.Sorted(maps.Keys(ci.ClusterAddrTable)) {
		for _, name := range slices.Sorted(slices.Values(ci.ClusterAddrTable[cluster])) {
			bd := ci.BrokerAddrTable[name]
			if bd == nil {
				continue
			}
			masterMax := int64(-1)
			for _, id := range slices.Sorted(maps.Keys(bd.BrokerAddrs)) {
				addr := bd.BrokerAddrs[id]
				row := brokerRow{Cluster: cluster, BrokerName: name, BrokerID: id, Addr: addr}
				kv, err := d.admin.FetchBrokerRuntimeStats(r.Context(), addr)
				if err != nil {
					row.Err = err.Error()
					rows = append(rows, row)
					continue
				}
				row.Role, row.Version = kv["brokerRole"], kv["brokerVersionDesc"]
				row.PutTPS = fmt.Sprintf("%.2f", admin.FirstRate(kv["putTps"]))
				row.GetTPS = fmt.Sprintf("%.2f", admin.FirstRate(kv["getTransferedTps"]))
				row.PutTotal, row.GetTotal = kv["msgPutTotalTodayNow"], kv["msgGetTotalTodayNow"]
				if r, err := strconv.ParseFloat(kv["commitLogDiskRatio"], 64); err == nil {
					row.DiskRatio = fmt.Sprintf("%.2f %%", r*100)
				}
				row.CommitLogMaxOffset, row.DispatchBehindBytes = kv["commitLogMaxOffset"], kv["dispatchBehindBytes"]
				maxOff, _ := strconv.ParseInt(kv["commitLogMaxOffset"], 10, 64)
				if id == protocol.MasterID {
					masterMax = maxOff
				} else if masterMax >= 0 {
					row.ReplicationLag = strconv.FormatInt(max(masterMax-maxOff, 0), 10)
				}
				rows = append(rows, row)
			}
		}
	}
	return "cluster", struct {
		Title   string
		Brokers []brokerRow
	}{"Cluster", rows}, nil
}

// topicsPage lists the topics the name server knows (GET_ALL_TOPIC_LIST_FROM_NAMESERVER).
func (d *Dashboard) topicsPage(r *http.Request) (string, any, error) {
	topics, err := d.admin.FetchAllTopicList(r.Context())
	if err != nil {
		return "", nil, err
	}
	type topicRow struct {
		Name          string
		Retry, System bool
	}
	var rows []topicRow
	for _, t := range topics {
		rows = append(rows, topicRow{Name: t, Retry: protocol.IsRetryTopic(t), System: isSystemTopic(t)})
	}
	return "topics", struct {
		Title  string
		Topics []topicRow
	}{"Topics", rows}, nil
}

// isSystemTopic: the broker's own topics (TBW102, SCHEDULE_TOPIC_XXXX, RMQ_SYS_*, the cluster
// and broker-name topics show as topics too; only these well-known ones are marked).
func isSystemTopic(t string) bool {
	return t == "TBW102" || t == "SCHEDULE_TOPIC_XXXX" || t == "OFFSET_MOVED_EVENT" || t == "SELF_TEST_TOPIC" ||
		strings.HasPrefix(t, "RMQ_SYS_") || strings.HasPrefix(t, "rmq_sys_")
}

// queueRow is one queue of a topic: its offsets in ConsumeQueue units and last store time.
type queueRow struct {
	BrokerName string
	QueueID    int32
	MinOffset  int64
	MaxOffset  int64
	LastUpdate string
	Messages   int64
}

// topicPage shows one topic: its route (brokers and queue counts, permissions), each queue's
// min and max offset (GET_TOPIC_STATS_INFO) and the groups that consume it.
func (d *Dashboard) topicPage(r *http.Request) (string, any, error) {
	topic := strings.TrimSpace(r.FormValue("t"))
	if topic == "" {
		return "", nil, badRequest("which topic? (parameter t)")
	}
	route, err := d.admin.ExamineTopicRouteInfo(r.Context(), topic)
	if admin.IsTopicNotExist(err) {
		return "", nil, notFound("no such topic " + topic)
	}
	if err != nil {
		return "", nil, err
	}
	stats, err := d.admin.ExamineTopicStats(r.Context(), topic)
	if err != nil {
		return "", nil, err
	}
	var queues []queueRow
	for _, mq := range protocol.SortedQueues(stats.OffsetTable) {
		o := stats.OffsetTable[mq]
		last := ""
		if o.LastUpdateTimestamp > 0 {
			last = admin.HumanTime(o.LastUpdateTimestamp)
		}
		queues = append(queues, queueRow{BrokerName: mq.BrokerName, QueueID: mq.QueueID, MinOffset: o.MinOffset,
			MaxOffset: o.MaxOffset, LastUpdate: last, Messages: o.MaxOffset - o.MinOffset})
	}
	type routeRow struct {
		BrokerName, Cluster, Addrs, Perm string
		Read, Write                      int32
	}
	var routes []routeRow
	addrs := map[string]*protocol.BrokerData{}
	for _, bd := range route.BrokerDatas {
		addrs[bd.BrokerName] = bd
	}
	for _, q := range route.QueueDatas {
		rr := routeRow{BrokerName: q.BrokerName, Read: q.ReadQueueNums, Write: q.WriteQueueNums, Perm: protocol.Perm2String(q.Perm)}
		if bd := addrs[q.BrokerName]; bd != nil {
			rr.Cluster = bd.Cluster
			var list []string
			for _, id := range slices.Sorted(maps.Keys(bd.BrokerAddrs)) {
				list = append(list, fmt.Sprintf("%d=%s", id, bd.BrokerAddrs[id]))
			}
			rr.Addrs = strings.Join(list, " ")
		}
		routes = append(routes, rr)
	}
	slices.SortFunc(routes, func(a, b routeRow) int { return strings.Compare(a.BrokerName, b.BrokerName) })
	groups, _ := d.admin.QueryTopicConsumeByWho(r.Context(), topic) // none is not an error here
	return "topic", struct {
		Title, Topic string
		Routes       any
		Queues       []queueRow
		Groups       []string
		OrderConf    string
	}{"Topic " + topic, topic, routes, queues, groups, route.OrderTopicConf}, nil
}

// groupRow is one consumer group of the groups page.
type groupRow struct {
	Group, Type, Model, Version, TPS string
	Members                          int
	Lag                              int64
	Orderly                          string
}

// groupsPage lists the consumer groups (those with a %RETRY% topic, as mqadmin's
// consumerProgress without -g) with their members, type, lag and whether they consume orderly.
func (d *Dashboard) groupsPage(r *http.Request) (string, any, error) {
	topics, err := d.admin.FetchAllTopicList(r.Context())
	if err != nil {
		return "", nil, err
	}
	var rows []groupRow
	for _, t := range topics {
		if !protocol.IsRetryTopic(t) {
			continue
		}
		g := groupRow{Group: strings.TrimPrefix(t, protocol.RetryGroupTopicPrefix), Version: "OFFLINE", TPS: "0.00"}
		if cc, err := d.admin.ExamineConsumerConnectionInfo(r.Context(), g.Group); err == nil {
			g.Members = len(cc.ConnectionSet)
			g.Type, g.Model = admin.ConsumeTypeDesc(cc.ConsumeType), string(cc.MessageModel)
			if g.Members > 0 {
				g.Version = admin.VersionDesc(cc.ConnectionSet[0].Version)
			}
		}
		if cs, err := d.admin.ExamineConsumeStats(r.Context(), g.Group, ""); err == nil {
			g.TPS, g.Lag = fmt.Sprintf("%.2f", cs.ConsumeTps), cs.ComputeTotalDiff()
		}
		g.Orderly, _ = d.orderly(g.Group)
		rows = append(rows, g)
	}
	return "groups", struct {
		Title  string
		Groups []groupRow
	}{"Consumer groups", rows}, nil
}

// orderly says whether group consumes orderly: only an orderly consumer locks its queues on the
// broker (LOCK_BATCH_MQ), so a group holding a lock does ("yes"), one holding none does not.
func (d *Dashboard) orderly(group string) (string, map[primitive.MessageQueue]string) {
	if d.cfg.Locks == nil {
		return "unknown", nil
	}
	locked := d.cfg.Locks.LockedQueues(group)
	if len(locked) > 0 {
		return "yes", locked
	}
	return "no", locked
}

// groupPage shows one group: its members (GET_CONSUMER_CONNECTION_LIST), subscriptions, and the
// lag of each queue (GET_CONSUME_STATS: broker offset − consumer offset, ConsumeQueue units),
// with the client holding each queue's lock when the group consumes orderly.
func (d *Dashboard) groupPage(r *http.Request) (string, any, error) {
	group := strings.TrimSpace(r.FormValue("g"))
	if group == "" {
		return "", nil, badRequest("which group? (parameter g)")
	}
	type member struct{ ClientID, ClientAddr, Language, Version string }
	type sub struct{ Topic, Expression string }
	var members []member
	var subs []sub
	var ccInfo string
	if cc, err := d.admin.ExamineConsumerConnectionInfo(r.Context(), group); err == nil {
		for _, c := range cc.ConnectionSet {
			members = append(members, member{c.ClientID, c.ClientAddr, c.Language, admin.VersionDesc(c.Version)})
		}
		for _, t := range slices.Sorted(maps.Keys(cc.SubscriptionTable)) {
			subs = append(subs, sub{t, cc.SubscriptionTable[t].SubString})
		}
		ccInfo = fmt.Sprintf("%s, %s, %s", admin.ConsumeTypeDesc(cc.ConsumeType), cc.MessageModel, cc.ConsumeFromWhere)
	} else {
		ccInfo = "not online: " + err.Error()
	}
	cs, err := d.admin.ExamineConsumeStats(r.Context(), group, "")
	if admin.IsTopicNotExist(err) { // no broker has the group's %RETRY% topic
		return "", nil, notFound("no such consumer group " + group)
	}
	if err != nil {
		return "", nil, err
	}
	type lagRow struct {
		Topic, BrokerName      string
		QueueID                int32
		BrokerOffset, Consumer int64
		Lag                    int64
		LastTime, LockOwner    string
	}
	orderly, locked := d.orderly(group)
	var lags []lagRow
	for _, mq := range protocol.SortedQueues(cs.OffsetTable) {
		o := cs.OffsetTable[mq]
		l := lagRow{Topic: mq.Topic, BrokerName: mq.BrokerName, QueueID: mq.QueueID, BrokerOffset: o.BrokerOffset,
			Consumer: o.ConsumerOffset, Lag: o.BrokerOffset - o.ConsumerOffset}
		if o.LastTimestamp > 0 {
			l.LastTime = admin.HumanTime(o.LastTimestamp)
		}
		l.LockOwner = locked[mq]
		lags = append(lags, l)
	}
	return "group", struct {
		Title, Group, Connection, Orderly, TPS string
		Members                                any
		Subscriptions                          any
		Lags                                   any
		Total                                  int64
	}{"Group " + group, group, ccInfo, orderly, fmt.Sprintf("%.2f", cs.ConsumeTps), members, subs, lags, cs.ComputeTotalDiff()}, nil
}

// messagePage looks messages up: by id (the broker's offsetMsgId, or with a topic the
// producer's msgId, UNIQ_KEY) or by key within a topic (the index, QUERY_MESSAGE), and shows
// each found message decoded field by field (admin.MessageFields, as mqadmin queryMsgById).
func (d *Dashboard) messagePage(r *http.Request) (string, any, error) {
	topic, id, key := strings.TrimSpace(r.FormValue("topic")), strings.TrimSpace(r.FormValue("id")), r.FormValue("key")
	data := struct {
		Title, Topic, ID, Key, Searched string
		Messages                        [][]admin.Field
		Err                             string
	}{Title: "Message", Topic: topic, ID: id, Key: key}
	var msgs []*primitive.MessageExt
	var err error
	switch {
	case id != "":
		data.Searched = "id " + id
		msgs, err = d.messagesByID(r, topic, id)
	case key != "":
		if topic == "" {
			return "", nil, badRequest("a lookup by key needs the topic")
		}
		data.Searched = "key " + key + " in " + topic
		msgs, err = d.admin.QueryMessage(r.Context(), topic, key, 64, 0, int64(^uint64(0)>>1), false)
	}
	if err != nil {
		data.Err = err.Error() // shown on the search page: "not found" is an answer, not a failure
	}
	for _, m := range msgs {
		data.Messages = append(data.Messages, admin.MessageFields(m))
	}
	return "message", data, nil
}

// messagesByID finds the message id names. An offsetMsgId names a store host: the console asks
// it (VIEW_MESSAGE_BY_ID) only when it is a broker the name servers list, so a page cannot make
// the broker connect wherever an id points; any other id, with a topic, is looked up as a
// UNIQ_KEY through the index (as admin.ViewMessageByID does).
func (d *Dashboard) messagesByID(r *http.Request, topic, id string) ([]*primitive.MessageExt, error) {
	var viewErr error
	if addr, _, err := primitive.DecodeOffsetMsgID(id); err != nil {
		viewErr = &admin.NotOffsetMsgIDError{ID: id, Cause: err}
	} else if known, err := d.isBroker(r, addr); err != nil {
		return nil, err
	} else if known {
		m, err := d.admin.ViewMessage(r.Context(), id)
		if err == nil {
			return []*primitive.MessageExt{m}, nil
		}
		viewErr = err
	} else {
		viewErr = fmt.Errorf("%s is no offsetMsgId of this cluster: it names %s, which is no broker the name servers list "+
			"(a producer msgId, UNIQ_KEY, needs the topic)", id, addr)
	}
	if topic == "" {
		return nil, viewErr
	}
	msgs, err := d.admin.QueryMessage(r.Context(), topic, id, 32, 0, int64(^uint64(0)>>1), true)
	if err != nil {
		return nil, errors.Join(viewErr, err)
	}
	return msgs[:1], nil
}

// isBroker reports whether addr is the address of a broker the name servers list.
func (d *Dashboard) isBroker(r *http.Request, addr string) (bool, error) {
	ci, err := d.admin.ExamineBrokerClusterInfo(r.Context())
	if err != nil {
		return false, err
	}
	for _, bd := range ci.BrokerAddrTable {
		for _, a := range bd.BrokerAddrs {
			if a == addr {
				return true, nil
			}
		}
	}
	return false, nil
}

// tracePage is the live trace: pick a topic; the page's script opens /trace/events for it and
// appends each step line as it comes.
func (d *Dashboard) tracePage(r *http.Request) (string, any, error) {
	topics, err := d.admin.FetchAllTopicList(r.Context())
	if err != nil {
		return "", nil, err
	}
	topic := strings.TrimSpace(r.FormValue("topic"))
	var user []string
	for _, t := range topics {
		if !protocol.IsRetryTopic(t) && !isSystemTopic(t) {
			user = append(user, t)
		}
	}
	return "trace", struct {
		Title, Topic      string
		Topics            []string
		Live, WriteEnable bool
	}{"Live trace", topic, user, d.cfg.Hub != nil, d.cfg.WriteEnable}, nil
}
