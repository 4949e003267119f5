! ecl_f.f90 -- ECL interface layer for Fortran: module ecl_f, over ecl.h
! through ISO_C_BINDING. Names are Fortran strings (trailing blanks ignored).
!
!   use ecl_f
!   integer(ecl_region_kind) :: solve
!   solve = ecl_region_define('solve')
!   call ecl_enter(solve)
!   ...
!   call ecl_leave(solve)
!   call ecl_enter_name('io')          ! by name, no define first
!   call ecl_leave_name('io')
!   call ecl_marker('converged')
!
! Built when configure finds gfortran: the module file ecl_f.mod (installed in
! the include directory) and libecl_f.a, which holds the procedures below;
! link with -lecl_f -lecl-core (or -lecl).
module ecl_f
    use, intrinsic :: iso_c_binding
    implicit none
    private
    integer, parameter, public :: ecl_region_kind = c_int32_t
    integer, parameter, public :: ecl_ok = 0
    public :: ecl_init, ecl_finalize, ecl_flush, ecl_region_define, ecl_enter, ecl_leave, &
              ecl_enter_name, ecl_leave_name, ecl_marker, ecl_pause, ecl_resume

    interface
        function c_init() bind(c, name='ecl_init') result(s)
            import :: c_int
            integer(c_int) :: s
        end function
        function c_finalize() bind(c, name='ecl_finalize') result(s)
            import :: c_int
            integer(c_int) :: s
        end function
        function c_flush() bind(c, name='ecl_flush') result(s)
            import :: c_int
            integer(c_int) :: s
        end function
        function c_region_define(name) bind(c, name='ecl_region_define') result(id)
            import :: c_char, c_int32_t
            character(kind=c_char), dimension(*), intent(in) :: name
            integer(c_int32_t) :: id
        end function
        subroutine c_enter(id) bind(c, name='ecl_enter')
            import :: c_int32_t
            integer(c_int32_t), value :: id
        end subroutine
        subroutine c_leave(id) bind(c, name='ecl_leave')
            import :: c_int32_t
            integer(c_int32_t), value :: id
        end subroutine
        subroutine c_enter_name(name) bind(c, name='ecl_enter_name')
            import :: c_char
            character(kind=c_char), dimension(*), intent(in) :: name
        end subroutine
        subroutine c_leave_name(name) bind(c, name='ecl_leave_name')
            import :: c_char
            character(kind=c_char), dimension(*), intent(in) :: name
        end subroutine
        subroutine c_marker(text) bind(c, name='ecl_marker')
            import :: c_char
            character(kind=c_char), dimension(*), intent(in) :: text
        end subroutine
        subroutine c_pause() bind(c, name='ecl_pause')
        end subroutine
        subroutine c_resume() bind(c, name='ecl_resume')
        end subroutine
    end interface

contains

    ! status: 0 (ecl_ok) or an ecl_status code of ecl.h
    integer function ecl_init()
        ecl_init = int(c_init())
    end function

    integer function ecl_finalize()
        ecl_finalize = int(c_finalize())
    end function

    integer function ecl_flush()
        ecl_flush = int(c_flush())
    end function

    ! 0 on error (an empty name)
    function ecl_region_define(name) result(id)
        character(len=*), intent(in) :: name
        integer(ecl_region_kind) :: id
        id = c_region_define(trim(name) // c_null_char)
    end function

    subroutine ecl_enter(id)
        integer(ecl_region_kind), intent(in) :: id
        call c_enter(id)
    end subroutine

    subroutine ecl_leave(id)
        integer(ecl_region_kind), intent(in) :: id
        call c_leave(id)
    end subroutine

    subroutine ecl_enter_name(name)
        character(len=*), intent(in) :: name
        call c_enter_name(trim(name) // c_null_char)
    end subroutine

    subroutine ecl_leave_name(name)
        character(len=*), intent(in) :: name
        call c_leave_name(trim(name) // c_null_char)
    end subroutine

    subroutine ecl_marker(text)
        character(len=*), intent(in) :: text
        call c_marker(trim(text) // c_null_char)
    end subroutine

    subroutine ecl_pause()
        call c_pause()
    end subroutine

    subroutine ecl_resume()
        call c_resume()
    end subroutine

end module ecl_f
