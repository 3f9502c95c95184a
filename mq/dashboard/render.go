package dashboard

import (
	"bytes"
	"embed"
	"html/template"
	"net/http"
)

// files are the console's templates and static assets, compiled into the binary.
//
//go:embed templates/*.html static/*
var files embed.FS

// assets serves static/ (the style sheet and the live trace's script) at /static/.
var assets = files

// pageNames are the templates under templates/, each rendered inside base.html.
var pageNames = []string{"cluster", "topics", "topic", "groups", "group", "message", "trace", "error", "sent"}

// templates holds one template set per page: base.html with the page's "content".
var templates = func() map[string]*template.Template {
	m := map[string]*template.Template{}
	for _, n := range pageNames {
		m[n] = template.Must(template.ParseFS(files, "templates/base.html", "templates/"+n+".html"))
	}
	return m
}()

// securityHeaders are sent with every page: no script but the console's own files (an injected
// <script> in a message key would not run even if it escaped the escaping), no framing, no
// content-type sniffing.
func securityHeaders(h http.Header) {
	h.Set("Content-Security-Policy", "default-src 'self'; frame-ancestors 'none'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "same-origin")
}

// render writes page name with data (html/template: every value is escaped for where it
// stands) and status code; a template failure is a 500 with no partial page.
func (d *Dashboard) render(w http.ResponseWriter, code int, name string, data any) {
	var buf bytes.Buffer
	if err := templates[name].ExecuteTemplate(&buf, "base", data); err != nil {
		d.log.Error("dashboard: render", "page", name, "err", err)
		http.Error(w, "render "+name+": "+err.Error(), http.StatusInternalServerError)
		return
	}
	securityHeaders(w.Header())
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(code)
	_, _ = w.Write(buf.Bytes())
}
