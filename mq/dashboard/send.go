package dashboard

import (
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"

	"github.com/annotated-rocketmq/rocketmq-go/mq/client"
	"github.com/annotated-rocketmq/rocketmq-go/mq/client/producer"
	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
)

// send is the one request that changes something: it sends a test message (topic, body, keys,
// tags from the form) through a producer of the console's own (group CONSOLE_PRODUCER_GROUP),
// as mqadmin sendMessage does. It is refused with 403 unless the broker enables it
// (dashboardWriteEnable=true), and with 403 when the request comes from another site (an Origin
// header naming another host): a page elsewhere cannot make a visitor's browser send. The
// answer is text for the live trace's script (Accept: text/plain), else a page.
func (d *Dashboard) send(w http.ResponseWriter, r *http.Request) {
	if !d.cfg.WriteEnable {
		http.Error(w, "the console is read-only: the broker's dashboardWriteEnable=false", http.StatusForbidden)
		return
	}
	if o := r.Header.Get("Origin"); o != "" {
		if u, err := url.Parse(o); err != nil || u.Host != r.Host {
			http.Error(w, "cross-site request refused", http.StatusForbidden)
			return
		}
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxSendForm)
	if err := r.ParseForm(); err != nil {
		http.Error(w, "bad form: "+err.Error(), http.StatusBadRequest)
		return
	}
	topic := strings.TrimSpace(r.PostFormValue("topic"))
	if topic == "" {
		http.Error(w, "which topic? (field topic)", http.StatusBadRequest)
		return
	}
	msg := &primitive.Message{Topic: topic, Body: []byte(r.PostFormValue("body")), Properties: map[string]string{}}
	if k := r.PostFormValue("keys"); k != "" {
		msg.Properties[primitive.PropertyKeys] = k
	}
	if t := r.PostFormValue("tags"); t != "" {
		msg.Properties[primitive.PropertyTags] = t
	}
	res, err := d.sendMessage(r, msg)
	text := ""
	code := http.StatusOK
	if err != nil {
		code, text = http.StatusBadGateway, "send failed: "+err.Error()
	} else {
		text = fmt.Sprintf("%s msgId=%s queue=%s/%d queueOffset=%d offsetMsgId=%s", res.SendStatus, res.MsgID,
			res.MessageQueue.BrokerName, res.MessageQueue.QueueID, res.QueueOffset, res.OffsetMsgID)
	}
	if strings.Contains(r.Header.Get("Accept"), "text/plain") {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.WriteHeader(code)
		fmt.Fprintln(w, text)
		return
	}
	d.render(w, code, "sent", struct{ Title, Result, Topic string }{"Send a test message", text, topic})
}

// maxSendForm bounds a test message's form: the broker's default maxMessageSize (4 MiB) and
// room for the other fields; a larger form is 400.
const maxSendForm = 4<<20 + 64<<10

// sendMessage sends msg through the console's producer, started on first use.
func (d *Dashboard) sendMessage(r *http.Request, msg *primitive.Message) (*client.SendResult, error) {
	d.prodMu.Lock()
	if d.prod == nil {
		cfg := producer.DefaultConfig("CONSOLE_PRODUCER_GROUP")
		cfg.NamesrvAddr = d.cfg.NamesrvAddr
		cfg.InstanceName = fmt.Sprintf("console-%d-%d", os.Getpid(), d.clk.Now().UnixNano())
		p := producer.NewDefaultMQProducer(cfg)
		if err := p.Start(); err != nil {
			d.prodMu.Unlock()
			return nil, err
		}
		d.prod = p
	}
	p := d.prod
	d.prodMu.Unlock()
	return p.Send(r.Context(), msg)
}
