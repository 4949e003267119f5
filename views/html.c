/* html.c -- one self-contained HTML report (no network, no external script):
 * the SVG views inline, plus an animator (play, pause, step, replay, speed)
 * that moves a time cursor through the run and redraws the utilization,
 * space-time and communication views up to the cursor, as ParaGraph did.
 * Data are embedded per time bin (bounded), never per record. */
#include <config.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "views/escape.h"
#include "views/vw.h"

static void inline_svg(const vw_view *v, const vw_facts *f, FILE *out)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    if (m == NULL)
        return;
    int rc = v->svg(f, m);
    fclose(m);
    if (rc == 0 && buf) {
        const char *s = strstr(buf, "<svg");
        fprintf(out, "<figure id=\"view-%s\">", v->name);
        fputs(s ? s : "", out);
        fputs("</figure>\n", out);
    }
    free(buf);
}

static const char script[] =
    "(function(){\n"
    "var D=JSON.parse(document.getElementById('data').textContent);\n"
    "var C=['#2e9e44','#e0b000','#d03a2f'];\n"
    "var t=0,playing=false,speed=1,last=null;\n"
    "var nb=D.nbins, dur=D.duration||1e-9;\n"
    "var cu=document.getElementById('util'), ct=document.getElementById('tl'),\n"
    "    cm=document.getElementById('cm'), lab=document.getElementById('time');\n"
    "function bin(){return Math.min(nb-1,Math.floor(t/dur*nb));}\n"
    "function drawUtil(){var g=cu.getContext('2d'),W=cu.width,H=cu.height;g.clearRect(0,0,W,H);\n"
    " var b=bin(),L=D.lanes.length||1;for(var i=0;i<=b;i++){var y=H;for(var s=0;s<3;s++){\n"
    "  var v=D.util[i*3+s]/(D.width*L);var h=Math.min(1,v)*H;g.fillStyle=C[s];\n"
    "  g.fillRect(i*W/nb,y-h,Math.ceil(W/nb),h);y-=h;}}\n"
    " g.strokeStyle='#000';g.beginPath();g.moveTo((b+1)*W/nb,0);g.lineTo((b+1)*W/nb,H);g.stroke();}\n"
    "function drawTl(){var g=ct.getContext('2d'),W=ct.width,n=D.lanes.length;\n"
    " var rh=Math.max(2,Math.floor(ct.height/Math.max(1,n)));g.clearRect(0,0,W,ct.height);\n"
    " var b=bin();for(var l=0;l<n;l++){var s=D.lanes[l].s;for(var i=0;i<=b;i++){var c=s.charCodeAt(i)-48;\n"
    "  if(c>=0&&c<3){g.fillStyle=C[c];g.fillRect(i*W/nb,l*rh,Math.ceil(W/nb),rh-1);}}}\n"
    " g.strokeStyle='rgba(27,79,156,0.7)';g.beginPath();for(var k=0;k<D.msgs.length;k++){var m=D.msgs[k];\n"
    "  if(m[3]>t)continue;g.moveTo(m[2]/dur*W,(m[0]+0.5)*rh);g.lineTo(m[3]/dur*W,(m[1]+0.5)*rh);}g.stroke();}\n"
    "function drawCm(){var g=cm.getContext('2d'),R=D.ranks.length,W=cm.width;g.clearRect(0,0,W,W);\n"
    " if(!R)return;var c=W/R,M=new Float64Array(R*R),mx=0;for(var k=0;k<D.msgs.length;k++){var m=D.msgs[k];\n"
    "  if(m[3]<=t){var i=D.lanes[m[0]].r*R+D.lanes[m[1]].r;M[i]+=m[4]+1;if(M[i]>mx)mx=M[i];}}\n"
    " g.strokeStyle='#888';g.strokeRect(0,0,W,W);for(var i=0;i<R*R;i++)if(M[i]>0){var q=Math.log(1+M[i])/Math.log(1+mx);\n"
    "  g.fillStyle='rgb(255,'+Math.round(230-200*q)+','+Math.round(200-180*q)+')';\n"
    "  g.fillRect((i%R)*c,Math.floor(i/R)*c,Math.max(1,c),Math.max(1,c));}}\n"
    "function hand(){var h=document.getElementById('hand');if(!h)return;var a=2*Math.PI*t/dur;\n"
    " h.setAttribute('x2',(120+80*Math.sin(a)).toFixed(1));h.setAttribute('y2',(130-80*Math.cos(a)).toFixed(1));}\n"
    "function draw(){drawUtil();drawTl();drawCm();hand();lab.textContent=t.toFixed(6)+' s';\n"
    " document.body.setAttribute('data-cursor',t);}\n"
    "function frame(){if(!playing){last=null;return;}var ts=performance.now();\n"
    " if(last!==null){t+=(ts-last)/1000*dur/10*speed;}\n"
    " last=ts;if(t>=dur){t=dur;playing=false;}draw();if(playing)setTimeout(frame,40);}\n"
    "function on(id,f){document.getElementById(id).addEventListener('click',f);}\n"
    "on('play',function(){if(!playing){playing=true;if(t>=dur)t=0;setTimeout(frame,0);}});\n"
    "on('pause',function(){playing=false;});\n"
    "on('step',function(){playing=false;t=Math.min(dur,t+dur/nb*4);draw();});\n"
    "on('replay',function(){t=0;playing=true;last=null;setTimeout(frame,0);});\n"
    "document.getElementById('speed').addEventListener('input',function(e){speed=parseFloat(e.target.value)||1;});\n"
    "draw();\n"
    "/* self-test hook (used by the browser test): #selftest clicks play and\n"
    "   records whether the cursor moved and the views changed */\n"
    "if(location.hash==='#selftest'){var u0=cu.toDataURL(),c0=ct.toDataURL();\n"
    " var sp=document.getElementById('speed');sp.value='8';sp.dispatchEvent(new Event('input'));\n"
    " document.getElementById('play').click();\n"
    " setTimeout(function(){document.getElementById('pause').click();\n"
    "  document.body.setAttribute('data-moved',t>0?'yes':'no');\n"
    "  document.body.setAttribute('data-changed',(cu.toDataURL()!==u0&&ct.toDataURL()!==c0)?'yes':'no');\n"
    " },1500);}\n"
    "})();\n";

int vw_html_report(const vw_facts *f, FILE *out)
{
    size_t nb = f->bin_width > 0 ? (size_t)ceil(f->duration / f->bin_width) : 1;
    if (nb < 1)
        nb = 1;
    if (nb > f->nbins)
        nb = f->nbins;
    fputs("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"/>\n<title>pal-view: ", out);
    vw_xml_escape(out, f->trace);
    fputs("</title>\n<style>body{font-family:sans-serif;margin:16px}canvas{border:1px solid #ccc;"
          "display:block;margin:4px 0 12px}figure{margin:8px 0}pre{background:#f6f6f6;"
          "padding:8px;overflow:auto}</style>\n</head><body data-cursor=\"0\">\n<h1>pal-view report</h1>\n<p>",
          out);
    vw_xml_escape(out, f->trace);
    fprintf(out, " &#8212; %llu records, %zu ranks, %zu threads, %.6f s</p>\n",
            (unsigned long long)f->records, f->nranks, f->nlanes, f->duration);
    fputs("<div id=\"animator\"><button id=\"play\">play</button> <button id=\"pause\">pause"
          "</button> <button id=\"step\">step</button> <button id=\"replay\">replay</button> "
          "speed <input id=\"speed\" type=\"range\" min=\"0.25\" max=\"8\" step=\"0.25\" "
          "value=\"1\"/> time <span id=\"time\">0</span></div>\n",
          out);
    fputs("<h2>Utilization (animated)</h2><canvas id=\"util\" width=\"900\" height=\"160\">"
          "</canvas>\n<h2>Space-time (animated)</h2>",
          out);
    int th = (int)f->nlanes * (f->nlanes > 64 ? 3 : 14);
    fprintf(out, "<canvas id=\"tl\" width=\"900\" height=\"%d\"></canvas>\n",
            th < 20 ? 20 : th);
    fputs("<h2>Communication (animated, messages received so far)</h2>"
          "<canvas id=\"cm\" width=\"256\" height=\"256\"></canvas>\n",
          out);
    inline_svg(&vw_view_clock, f, out);
    fputs("<h2>Views</h2>\n", out);
    inline_svg(&vw_view_utilization, f, out);
    inline_svg(&vw_view_util_total, f, out);
    inline_svg(&vw_view_calltree, f, out);
    if (f->has_messages)
        inline_svg(&vw_view_comm, f, out);
    fputs("<h2>Profile</h2><pre>", out);
    {
        char *buf = NULL;
        size_t len = 0;
        FILE *m = open_memstream(&buf, &len);
        if (m) {
            vw_view_profile.text(f, m);
            fclose(m);
            if (buf)
                vw_xml_escape(out, buf);
            free(buf);
        }
    }
    fputs("</pre>\n<script type=\"application/json\" id=\"data\">", out);
    fprintf(out, "{\"duration\":%.9g,\"width\":%.9g,\"nbins\":%zu,\"util\":[", f->duration,
            f->bin_width, nb);
    for (size_t i = 0; i < nb * VW_NSTATES; i++)
        fprintf(out, "%s%.4g", i ? "," : "", f->util[i]);
    fputs("],\"ranks\":[", out);
    for (size_t i = 0; i < f->nranks; i++)
        fprintf(out, "%s%u", i ? "," : "", f->ranks[i]);
    fputs("],\"lanes\":[", out);
    for (size_t i = 0; i < f->nlanes; i++) {
        const vw_lane *l = &f->lanes[i];
        fprintf(out, "%s{\"p\":%u,\"t\":%u,\"r\":%zu,\"s\":\"", i ? "," : "", l->process,
                l->stream, l->rank_index);
        for (size_t b = 0; b < nb; b++) {
            const double *x = &l->bins[b * VW_NSTATES];
            int c = 3;
            if (x[0] + x[1] + x[2] > 0.05 * f->bin_width) {
                c = 0;
                for (int s = 1; s < VW_NSTATES; s++)
                    if (x[s] > x[c])
                        c = s;
            }
            fputc('0' + c, out);
        }
        fputs("\"}", out);
    }
    fputs("],\"msgs\":[", out);
    size_t nm = f->nmsgs < 2000 ? f->nmsgs : 2000;
    for (size_t i = 0; i < nm; i++) {
        const vw_msg *m = &f->msgs[i];
        fprintf(out, "%s[%zu,%zu,%.9g,%.9g,%llu]", i ? "," : "", m->src_lane, m->dst_lane,
                m->t_send, m->t_recv, (unsigned long long)m->bytes);
    }
    fputs("]}</script>\n<script>/*<![CDATA[*/\n", out);
    fputs(script, out);
    fputs("/*]]>*/</script>\n</body></html>\n", out);
    return ferror(out) ? -1 : 0;
}
