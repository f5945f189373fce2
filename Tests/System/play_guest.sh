# The guest's side of test_play.py: a template (@KIOSK@, @CASES@, @CADENCE_MODE@ and
# @PLAY_SECONDS@ are filled in by it), run by bash in the bed.
# bash, not sh: `read -t` on a FIFO sleeps without an exec, and every exec of a host binary
# over 9p costs 0.1-0.2 s of CPU under TCG, which kiosk's timings would feel.
K=@KIOSK@
mkfifo /tmp/nap && exec 9<>/tmp/nap
nap() { read -r -t "$1" -u 9 _ || true; }
await() {  # FILE: wait for the host to write it, however long (its deadlines and bed.wait are the backstop)
    while [ ! -e "$1" ]; do nap 0.05; done
}
alive() {  # PID: still running (kill -0 is true for a zombie; /proc/PID/stat says Z)
    [ -e /proc/$1/stat ] && { read -r _ _ state _ < /proc/$1/stat; [ "$state" != Z ]; }
}
await_frame() {  # STATS PID: until the first frame's stats line is written or kiosk is gone
    local i=0; while [ ! -s "$1" ] && alive $2 && (( i++ < 3600 )); do nap 0.05; done
}
guard() {  # PID: SIGKILL it if it still runs in 5 minutes (a hung kiosk fails its case, not the boot)
    ( nap 300; kill -KILL $1 ) 2>/dev/null & watchdog=$!
}
launch() {  # NAME STATS ARGS...: start `kiosk play ARGS`, wait for its first frame; sets pid
    local d=$1 stats=$2; shift 2
    : > $stats
    "$K" play --stats-file $stats "$@" >> $d/kiosk.log 2>&1 &
    pid=$!; guard $pid
    await_frame $stats $pid
}
stop_kiosk() {  # SIGTERM $pid and time its exit (/proc/uptime: 10 ms steps, no exec); sets exit_json
    local t0 t1 rc
    read -r t0 _ < /proc/uptime
    kill -TERM $pid
    wait $pid; rc=$?
    read -r t1 _ < /proc/uptime
    kill $watchdog 2>/dev/null
    hundredths=$(( 10#${t1/./} - 10#${t0/./} ))
    exit_json="{\"rc\": $rc, \"seconds\": $((hundredths / 100)).$(printf %02d $((hundredths % 100)))}"
}
finish() {  # NAME: NAME/stats.jsonl and NAME/exit.json
    cp /tmp/$1-stats.jsonl $1/stats.jsonl
    echo "$exit_json" > $1/exit.json
}
printf '\033[2J\033[H' > /dev/tty1
for i in 1 2 3 4 5 6 7 8; do echo "kiosk play bed $i: the console comes back when kiosk exits" > /dev/tty1; done
: > console-ready; await console-shot
show() {  # NAME KIOSK-ARGS...: the first frame, paused, until the host has looked
    local d=$1
    launch $d /tmp/$d-stats.jsonl --start-paused "${@:2}" pattern.mp4
    : > $d/ready; await $d/go
    stop_kiosk; finish $d
    await $d/done
}
@CASES@
cadence=(--display drm::Virtual-1:@CADENCE_MODE@ moving.mp4)
launch cadence /tmp/cadence-stats.jsonl "${cadence[@]}"
"$K" play --display auto moving.mp4 > cadence/second.log 2>&1; echo $? > cadence/second.rc
nap 1   # the second kiosk's exit settles
read -r start _ < /proc/uptime; echo $start > cadence/window-start
: > cadence/playing
nap @PLAY_SECONDS@
await cadence/shots-done   # the host's two screendumps of the picture moving
stop_kiosk; finish cadence
await cadence/done
