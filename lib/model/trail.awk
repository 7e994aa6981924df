# Turns the @-lines lcf.pml prints during a trail replay (spin -t) into a
# readable sequence of messages. Used by scripts/model-check.sh.
# Formats the @-lines the model prints (spin -t) as a readable trail.
function kn(k) { return k==1?"READ_MISS":k==2?"WRITE_MISS":k==3?"WRITE_SHARED":k==4?"EVICT_SHARED":k==5?"EVICT_MODIFIED":k==6?"READ_UNLOCK":k==7?"WRITE_UNLOCK":k==8?"ADD":k==9?"REMOVE":k==10?"ABORT":k==16?"NACK":k==17?"UNLOCK_ACK":k==18?"MIGRATE_ACK":k==19?"ABORT_ACK":k==20?"NACK(REMOVE)":k==32?"GRANT":"?" k }
function bn(b) { return b==0?"X":"Y" }
function gn(g) { return g==0?"U":g==1?"S":"M" }
function who(id) { return id==1?"switch":id==2?"home":id==3?"req0":id==4?"req1":id==5?"switch(mig)":"home(mig)" }
function msg(k,r,s,b,x,g,c) {
  out = kn(k) " r" r " seq" s " " bn(b)
  if (k==32) out = out " (data " x ", was " gn(g) " cs=" c ")"
  if (k==19) out = out (x ? " (a copy passed)" : " (aborted)")
  if (k>=1 && k<=5 && x) out = out " FAIL"
  if (k==6 || k==7 || k==8) out = out " (" gn(g) " cs=" c ")"
  if (k==18) out = out " of " kn(x) " (" gn(g) " cs=" c ")"
  return out
}
function opn(o) { return o==1?"RELEASE":o==2?"UNLOCK":o==3?"ADD":"REMOVE" }
function why(w) { return w==1?"nack_stale_request":w==2?"nack_lock_busy":w==3?"nack_aborted_request":w==4?"nack_check_failed":"nack_check_failed (RELEASE pass)" }
{ sub(/^[ \t]+/, "") }
/^@q / { sub(/^@q /, ""); printf "%4d  %s\n", ++n, $0; next }
/^@D/ { printf "%4d  %-7s receives %s\n", ++n, who($2), msg($3,$4,$5,$6,$7,$8,$9); next }
/^@C/ { printf "%4d  network DUPLICATES, %s receives %s (a copy stays in flight)\n", ++n, who($2), msg($3,$4,$5,$6,$7,$8,$9); next }
/^@L/ { printf "%4d  network LOSES %s to %s\n", ++n, msg($3,$4,$5,$6,$7,$8,$9), who($2); next }
/^@R/ { printf "%4d  network REORDERS %s to %s (to the back)\n", ++n, msg($3,$4,$5,$6,$7,$8,$9), who($2); next }
/^@P/ { printf "%4d  switch second pass %s of %s r%d seq%d %s%s\n", ++n, opn($2), kn($3), $4, $5, bn($6), ($2==1? " (lock kind " ($7?"write":"read") ")" : $2==2? " (exec " $7 ", score " $8 ")" : ""); next }
/^@Q/ { printf "%4d  switch LOSES resubmitted pass %s of %s r%d seq%d %s\n", ++n, opn($2), kn($3), $4, $5, bn($6); next }
/^@O/ { printf "        switch: tag miss, %s r%d seq%d %s goes home%s\n", kn($2), $3, $4, bn($5), ($6 ? " with FAIL" : ""); next }
/^@Z/ { printf "        switch: %s r%d seq%d %s took the lock but %s: resubmitted to RELEASE\n", kn($2), $3, $4, bn($5), ($6 ? "the event is over (aborted)" : "the check failed"); next }
/^@N/ { printf "        switch: NACK r%d seq%d %s: %s\n", $2, $3, bn($4), why($5); next }
/^@F/ { printf "        switch: FORWARDS %s r%d seq%d %s (%s; block %s cs=%d)\n", kn($4), $2, $3, bn($5), ($6? "lock taken" : "NO LOCK TAKEN: passed on score"), gn($7), $8; next }
/^@E/ { printf "%4d  req%d starts event seq%d: %s on %s\n", ++n, $2, $3, kn($4), bn($5); next }
/^@G/ { printf "        req%d: seq%d %s on %s GRANTED (data %d): holds the block\n", $2, $3, kn($4), bn($5), $6; next }
/^@H/ { printf "        req%d: abandoned seq%d %s on %s: a copy passed, holds the lock until its unlock\n", $2, $3, kn($4), bn($5); next }
/^@U/ { printf "        req%d: sends %s seq%d %s (%s cs=%d)\n", $2, kn($4), $3, bn($5), gn($6), $7; next }
/^@Y/ { printf "%4d  req%d retries seq%d (same request)\n", ++n, $2, $3; next }
/^@B/ { printf "%4d  req%d abandons seq%d: sends ABORT\n", ++n, $2, $3; next }
/^@T/ { printf "%4d  req%d timeout: retransmits\n", ++n, $2; next }
/^@M/ { printf "%4d  home starts %s of %s\n", ++n, $2, bn($3); next }
/^@V DATA/ { printf "  >>> DATA VIOLATED: after a write-back %s holds %d at the home, the last write was %d\n", bn($3), $4, $5; next }
/^@V/ { printf "  >>> SWMR VIOLATED: req%d takes %s hold on %s while req%d holds it (%s)\n", $3, ($4==1?"a read":"a write"), bn($5), $6, ($7==1?"read":"write"); next }
/assertion violated|never claim|acceptance cycle|CYCLE/ { print "  >>> " $0; next }
