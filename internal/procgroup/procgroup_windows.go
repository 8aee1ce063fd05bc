package procgroup

import (
	"os/exec"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"
)

func prepare(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.CreationFlags |= windows.CREATE_NEW_PROCESS_GROUP
}

// sysGroup is the job object the program was put in (its children join
// it), and the console process group it leads. A process the program
// starts before it joins the job escapes it: the job is joined right
// after the start, before the program has run far.
type sysGroup struct {
	job windows.Handle // 0: none could be made; only the program is ended
	pid uint32
	cmd *exec.Cmd
}

func attach(cmd *exec.Cmd) sysGroup {
	s := sysGroup{pid: uint32(cmd.Process.Pid), cmd: cmd}
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return s
	}
	// Closing the job's last handle (sightline's exit, whatever ends it)
	// ends whatever is left in it.
	info := windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{}
	info.BasicLimitInformation.LimitFlags = windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
	_, _ = windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation, uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info)))
	h, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, s.pid)
	if err != nil {
		windows.CloseHandle(job)
		return s
	}
	defer windows.CloseHandle(h)
	if windows.AssignProcessToJobObject(job, h) != nil {
		windows.CloseHandle(job)
		return s
	}
	s.job = job
	return s
}

// accounting is JOBOBJECT_BASIC_ACCOUNTING_INFORMATION.
type accounting struct {
	TotalUserTime, TotalKernelTime, ThisPeriodTotalUserTime, ThisPeriodTotalKernelTime int64
	TotalPageFaultCount, TotalProcesses, ActiveProcesses, TotalTerminatedProcesses     uint32
}

func (s sysGroup) empty() bool {
	if s.job == 0 {
		return false // not known: the stop waits its bounds
	}
	var a accounting
	if windows.QueryInformationJobObject(s.job, windows.JobObjectBasicAccountingInformation, uintptr(unsafe.Pointer(&a)), uint32(unsafe.Sizeof(a)), nil) != nil {
		return false
	}
	return a.ActiveProcesses == 0
}

func (s sysGroup) stop(grace time.Duration) bool {
	// CTRL_BREAK reaches the console process group the program leads, a
	// console program's SIGTERM.
	_ = windows.GenerateConsoleCtrlEvent(windows.CTRL_BREAK_EVENT, s.pid)
	if waitGone(s.empty, grace) {
		return s.close()
	}
	if s.job != 0 {
		_ = windows.TerminateJobObject(s.job, 1)
	} else {
		_ = s.cmd.Process.Kill()
	}
	gone := waitGone(s.empty, grace)
	s.close()
	return gone
}

func (s sysGroup) close() bool {
	if s.job != 0 {
		windows.CloseHandle(s.job)
	}
	return true
}
