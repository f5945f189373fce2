"""The guest shell lines that find vivid's capture node (its output node is the other one) and
write it to `capture-node` in the work directory; test_capture.py and test_record.py start their
guest commands with them."""

FIND_CAPTURE_NODE = r'''
for n in /sys/class/video4linux/video*; do
    if grep -q 'vid-cap' "$n/name"; then echo "/dev/$(basename "$n")" > capture-node; fi
done
CAP=$(cat capture-node)
'''
