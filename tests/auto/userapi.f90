! userapi.f90 -- tests/auto: the Fortran module ecl_f: a region defined and
! entered 4 times, a region by name entered twice, a marker.
program userapi
    use ecl_f
    implicit none
    integer(ecl_region_kind) :: solve
    integer :: i
    solve = ecl_region_define('solve')
    do i = 1, 4
        call ecl_enter(solve)
        call ecl_leave(solve)
    end do
    do i = 1, 2
        call ecl_enter_name('by name   ')
        call ecl_leave_name('by name')
    end do
    call ecl_marker('fortran done')
    if (ecl_finalize() /= ecl_ok) stop 1
end program
